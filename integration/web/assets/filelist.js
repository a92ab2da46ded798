// The run view's list of files, windowed: every row has the same height,
// so the list knows where each file is without building it, and only the
// rows in and near the visible part of the list are in the page. A
// 1,000-file run costs what its few dozen visible rows cost.
//
// The list scrolls in its own box (#files). Rows are grouped under their
// tool call; a group's head sticks to the top while its rows scroll by.
// Rows are kept by path and rebuilt only when what they show changes, so
// a live update keeps the scroll position and the focus. The keyboard
// reaches every row: Tab walks the rendered rows (the rows beyond the
// edge are rendered before focus gets there), and Arrow Up/Down, Page
// Up/Down, Home and End move between rows, rendering the row they land on.
import { h } from './dom.js';

const overscan = 12; // rows rendered beyond each edge of the visible part
const gap = 12; // px between two groups
const slots = ['link', 'rollback', 'accept', 'reject', 'clear', 'history'];

export class FileList {
  // opts.row(f, g) builds a file's <tr>; opts.sig(f) is what the row shows
  // (the row is rebuilt when it changes); opts.head(g) builds a group's
  // head, opts.headSig(g) what it shows; opts.state(tr, f) sets what may
  // be clicked in a row.
  constructor(opts) {
    this.opts = opts;
    this.rowH = 40; // as style.css sets them; measured once rendered
    this.headH = 36;
    this.measured = false;
    this.groups = [];
    this.order = []; // every file in display order: {f, g, i}
    this.index = new Map(); // path → its position in order
    this.cache = new Map(); // path → {sig, tr}
    this.sections = new Map(); // group key → its <section>
    this.total = 0;
    this.frame = 0;
    this.space = h('div', { class: 'files-space' });
    this.el = h('div', { class: 'files', id: 'files', role: 'region', 'aria-label': 'Files the run changed (Arrow keys move between files)' }, this.space);
    this.el.addEventListener('scroll', () => this.schedule());
    this.el.addEventListener('keydown', (e) => this.key(e));
    // Focus moved by Tab has scrolled its row into view: render the rows
    // beyond it now, so that the next Tab finds them.
    this.el.addEventListener('focusin', () => this.render());
    this.onResize = () => this.schedule();
    window.addEventListener('resize', this.onResize);
  }

  // setGroups shows groups: [{key, call, files: [row objects with path]}].
  setGroups(groups) {
    this.groups = groups;
    this.layout();
    for (const p of this.cache.keys()) if (!this.index.has(p)) this.cache.delete(p);
    this.render();
  }

  layout() {
    let top = 0;
    this.order = [];
    this.index = new Map();
    for (const g of this.groups) {
      g.top = top;
      g.height = 2 + this.headH + g.files.length * this.rowH;
      g.files.forEach((f, i) => {
        this.index.set(f.path, this.order.length);
        this.order.push({ f, g, i });
      });
      top += g.height + gap;
    }
    this.total = Math.max(0, top - gap);
    this.space.style.height = `${this.total}px`;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  // render puts the rows of the visible part (and overscan) in the page.
  render() {
    if (!this.el.isConnected) {
      window.removeEventListener('resize', this.onResize);
      return;
    }
    const st = this.el.scrollTop;
    const vh = this.el.clientHeight || window.innerHeight;
    const lo = st - overscan * this.rowH;
    const hi = st + vh + overscan * this.rowH;
    const shown = new Set();
    for (const g of this.groups) {
      if (g.top >= hi || g.top + g.height <= lo) continue;
      shown.add(g.key);
      const rowsTop = g.top + 1 + this.headH;
      const n = g.files.length;
      const a = clamp(Math.floor((lo - rowsTop) / this.rowH), 0, n);
      const b = clamp(Math.ceil((hi - rowsTop) / this.rowH), 0, n);
      this.renderGroup(g, a, b);
    }
    for (const [k, sec] of this.sections) {
      if (!shown.has(k)) {
        sec.remove();
        this.sections.delete(k);
      }
    }
    this.measure();
  }

  // renderGroup shows group g's rows a..b-1 under its head.
  renderGroup(g, a, b) {
    let sec = this.sections.get(g.key);
    const hs = this.opts.headSig(g);
    if (!sec) {
      const spacer = h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan: '4' }));
      sec = h('section', { class: 'group', dataset: { call: g.call ? g.call.tool_call_id : '' } },
        this.opts.head(g),
        h('table', { class: 'file-table' },
          h('colgroup', {}, h('col', { class: 'c-kind' }), h('col', {}), h('col', { class: 'c-mark' }), h('col', { class: 'c-act' })),
          h('tbody', {}, spacer)));
      sec.headSig = hs;
      this.space.append(sec);
      this.sections.set(g.key, sec);
    } else if (sec.headSig !== hs) {
      sec.firstChild.replaceWith(this.opts.head(g));
      sec.headSig = hs;
    }
    sec.style.top = `${g.top}px`;
    sec.style.height = `${g.height}px`;
    sec.querySelector('table').setAttribute('aria-rowcount', String(g.files.length));
    const tbody = sec.querySelector('tbody');
    const spacer = tbody.firstChild;
    spacer.hidden = a === 0;
    spacer.firstChild.style.height = `${a * this.rowH}px`;
    const want = [];
    for (let i = a; i < b; i++) want.push(this.rowFor(g.files[i], g, i));
    const keep = new Set(want);
    for (const tr of [...tbody.children]) if (tr !== spacer && !keep.has(tr)) tr.remove();
    let cur = spacer.nextSibling;
    for (const tr of want) {
      if (cur === tr) {
        cur = cur.nextSibling;
        continue;
      }
      tbody.insertBefore(tr, cur);
      this.opts.state(tr, this.order[this.index.get(tr.dataset.path)].f);
    }
  }

  // rowFor is file f's row, rebuilt when what it shows changed (in place,
  // keeping the focus, when it is in the page).
  rowFor(f, g, i) {
    const sig = this.opts.sig(f);
    let c = this.cache.get(f.path);
    if (!c || c.sig !== sig) {
      const tr = this.opts.row(f, g);
      if (c && c.tr.isConnected) {
        const focused = c.tr.contains(document.activeElement) ? slotOf(document.activeElement) : null;
        c.tr.replaceWith(tr);
        this.opts.state(tr, f);
        if (focused) focusIn(tr, focused);
      }
      c = { sig, tr };
      this.cache.set(f.path, c);
    }
    c.tr.setAttribute('aria-rowindex', String(i + 1));
    return c.tr;
  }

  // measure corrects the row and head heights once, from the page (fonts
  // and zoom may differ from what style.css intends).
  measure() {
    if (this.measured) return;
    const tr = this.space.querySelector('tr[data-path]');
    if (!tr) return;
    this.measured = true;
    const rh = tr.getBoundingClientRect().height;
    const hh = tr.closest('section').firstChild.getBoundingClientRect().height;
    if (rh > 0 && hh > 0 && (Math.abs(rh - this.rowH) > 0.01 || Math.abs(hh - this.headH) > 0.01)) {
      this.rowH = rh;
      this.headH = hh;
      this.layout();
      this.render();
    }
  }

  // rendered calls fn for each row in the page.
  rendered(fn) {
    for (const tr of this.space.querySelectorAll('tr[data-path]')) {
      const at = this.index.get(tr.dataset.path);
      if (at !== undefined) fn(tr, this.order[at].f);
    }
  }

  // reveal scrolls path's row into view and renders it; the row, or null
  // for a path not in the list.
  reveal(path) {
    const at = this.index.get(path);
    if (at === undefined) return null;
    const { g, i } = this.order[at];
    const top = g.top + 1 + this.headH + i * this.rowH;
    const st = this.el.scrollTop;
    if (top - this.headH < st) this.el.scrollTop = Math.max(0, top - this.headH - 1);
    else if (top + this.rowH > st + this.el.clientHeight) this.el.scrollTop = top + this.rowH - this.el.clientHeight + 1;
    this.render();
    return this.cache.get(path)?.tr || null;
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const tr = e.target.closest && e.target.closest('tr[data-path]');
    const at = tr && this.index.get(tr.dataset.path);
    if (at === undefined || at === null) return;
    const page = Math.max(1, Math.floor(this.el.clientHeight / this.rowH) - 1);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: this.order.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const slot = slotOf(e.target);
    const row = this.reveal(this.order[clamp(to, 0, this.order.length - 1)].f.path);
    if (row) focusIn(row, slot);
  }
}

// slotOf names which of a row's controls el is, so that moving to another
// row focuses the same one.
function slotOf(el) {
  return slots.find((c) => el.classList && el.classList.contains(c)) || '';
}

// focusIn focuses the row's control in slot, else its first one that may
// be clicked, else the row itself.
function focusIn(tr, slot) {
  const same = slot && tr.querySelector(`.${slot}`);
  const el = (same && !same.disabled ? same : null) || tr.querySelector('button:not(:disabled), a[href]') || tr;
  el.focus();
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
