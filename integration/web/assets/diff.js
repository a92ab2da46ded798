// The diff viewer: a unified patch shown unified or side by side.
import { h } from './dom.js';

const modeKey = 'ckpt.diffMode';

export function diffMode() {
  return localStorage.getItem(modeKey) === 'split' ? 'split' : 'unified';
}

// parse splits a unified patch into hunks of lines {t: ' '|'+'|'-', text, a, b}.
export function parse(patch) {
  const hunks = [];
  let cur = null;
  let a = 0;
  let b = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('--- ') || line.startsWith('+++ ')) continue;
    const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (m) {
      a = +m[1];
      b = +m[2];
      cur = { header: line, lines: [] };
      hunks.push(cur);
      continue;
    }
    if (!cur || line === '') continue;
    const t = line[0];
    const text = line.slice(1);
    if (t === '+') cur.lines.push({ t, text, b: b++ });
    else if (t === '-') cur.lines.push({ t, text, a: a++ });
    else if (t === ' ') cur.lines.push({ t, text, a: a++, b: b++ });
    else cur.lines.push({ t: '\\', text: line });
  }
  return hunks;
}

// fileDiff renders one change: its patch, or why there is none.
export function fileDiff(change, mode = diffMode()) {
  const head = h('div', { class: 'diff-head' }, h('span', { class: `kind ${change.kind}` }, change.kind), ' ', h('code', {}, change.path));
  if (change.binary) {
    return h('section', { class: 'diff', 'aria-label': `Diff of ${change.path}` }, head,
      h('p', { class: 'muted binary' }, 'Binary file, or larger than max_file_size (not stored): no text diff.'));
  }
  if (!change.patch) {
    return h('section', { class: 'diff', 'aria-label': `Diff of ${change.path}` }, head, h('p', { class: 'muted' }, 'No content change (mode or type only, or empty file).'));
  }
  const hunks = parse(change.patch);
  const body = mode === 'split' ? split(hunks) : unified(hunks);
  return h('section', { class: `diff ${mode}`, 'aria-label': `Diff of ${change.path}` }, head, body);
}

function unified(hunks) {
  const rows = [];
  for (const hk of hunks) {
    rows.push(h('tr', { class: 'hunk' }, h('td', { colspan: 3 }, hk.header)));
    for (const l of hk.lines) {
      const cls = l.t === '+' ? 'add' : l.t === '-' ? 'del' : 'ctx';
      rows.push(h('tr', { class: cls }, h('td', { class: 'ln' }, l.a ?? ''), h('td', { class: 'ln' }, l.b ?? ''),
        h('td', { class: 'code' }, h('span', { class: 'sign' }, l.t === ' ' ? ' ' : l.t), l.text)));
    }
  }
  return h('table', { class: 'code-table' }, h('tbody', {}, rows));
}

// split pairs each run of removed lines with the added lines after it.
function split(hunks) {
  const rows = [];
  for (const hk of hunks) {
    rows.push(h('tr', { class: 'hunk' }, h('td', { colspan: 4 }, hk.header)));
    const ls = hk.lines;
    for (let i = 0; i < ls.length;) {
      if (ls[i].t === ' ' || ls[i].t === '\\') {
        rows.push(pair(ls[i], ls[i]));
        i++;
        continue;
      }
      const dels = [];
      const adds = [];
      while (i < ls.length && ls[i].t === '-') dels.push(ls[i++]);
      while (i < ls.length && ls[i].t === '+') adds.push(ls[i++]);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push(pair(dels[k], adds[k]));
    }
  }
  return h('table', { class: 'code-table split' }, h('tbody', {}, rows));
}

function pair(l, r) {
  const side = (x, n) => x
    ? [h('td', { class: 'ln' }, x[n] ?? ''), h('td', { class: `code ${x.t === '-' ? 'del' : x.t === '+' ? 'add' : 'ctx'}` }, x.text)]
    : [h('td', { class: 'ln' }), h('td', { class: 'code empty' })];
  return h('tr', {}, side(l, 'a'), side(r, 'b'));
}

// diffList renders several changes with a unified/split switch.
export function diffList(title, files, onMode) {
  const mode = diffMode();
  const toggle = h('div', { class: 'diff-mode', role: 'group', 'aria-label': 'Diff layout' },
    ['unified', 'split'].map((m) => h('button', {
      type: 'button', 'aria-pressed': m === mode ? 'true' : 'false',
      onclick: () => { localStorage.setItem(modeKey, m); onMode && onMode(); },
    }, m === 'unified' ? 'Unified' : 'Side by side')));
  return h('div', { class: 'diffs' }, h('div', { class: 'diffs-head' }, h('h3', {}, title), toggle),
    files.length ? files.map((f) => fileDiff(f, mode)) : h('p', { class: 'muted' }, 'No changes.'));
}
