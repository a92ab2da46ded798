// Path history: every version of one file with who made it, a diff
// between any two, and restore of any version.
import { get } from './api.js';
import { h, shortTime } from './dom.js';
import { app, act, confirm, send, restorePlan, link } from './app.js';
import { diffList } from './diff.js';

let root = null;
let q = null;
let hist = null;
let pick = { a: '', b: '' };

export function mount(main, params) {
  root = main;
  q = params;
  pick = { a: '', b: '' };
  return { load, render, refresh };
}

async function load(ws) {
  const path = q.get('path');
  if (!path) return null;
  return get('history', { ws, path });
}

function form() {
  return h('form', { class: 'history-form', onsubmit: (e) => { e.preventDefault(); location.hash = link('history', { path: e.target.elements.path.value }); } },
    h('label', {}, 'Path ', h('input', { name: 'path', value: q.get('path') || '', placeholder: 'src/main.go', required: true })),
    h('button', { type: 'submit' }, 'Show history'));
}

function by(v) {
  if (v.by === 'run' || v.by === 'tool') return `${v.by === 'tool' ? 'tool call ' + v.tool_call_id + ' of ' : ''}run ${v.session_id}/${v.run_id}`;
  if (v.by === 'person') return 'you (outside any run)';
  return v.by;
}

function render(d) {
  hist = d;
  if (!d) {
    root.replaceChildren(h('h2', {}, 'Path history'), form());
    return;
  }
  if (!pick.a && d.versions.length > 1) pick = { a: d.versions[1].ref, b: d.versions[0].ref };
  const rows = d.versions.map((v) => h('tr', { dataset: { ref: v.ref } },
    h('td', {}, h('input', { type: 'radio', name: 'a', 'aria-label': `Diff from ${v.ref}`, checked: pick.a === v.ref, onchange: () => { pick.a = v.ref; diff(); } })),
    h('td', {}, h('input', { type: 'radio', name: 'b', 'aria-label': `Diff to ${v.ref}`, checked: pick.b === v.ref, onchange: () => { pick.b = v.ref; diff(); } })),
    h('td', {}, h('code', {}, v.ref)), h('td', {}, shortTime(v.at)),
    h('td', {}, h('span', { class: `kind ${v.kind}` }, v.kind)), h('td', { class: 'by' }, by(v)),
    h('td', {}, v.checkpoint_id ? h('code', {}, v.checkpoint_id) : ''), h('td', { class: 'num' }, v.kind === 'deleted' ? '' : `${v.size} B`),
    h('td', {}, h('button', { type: 'button', class: 'act restore-version', onclick: () => restoreVersion(v), 'aria-label': `Restore version ${v.ref} of ${d.path}` }, 'Restore'))));
  // A live update keeps the diff on screen until its replacement arrives.
  const pane = root.querySelector('#version-diff') || h('div', { id: 'version-diff' });
  root.replaceChildren(h('h2', {}, 'History of ', h('code', {}, d.path)), form(),
    h('table', { class: 'versions' }, h('thead', {}, h('tr', {}, ['from', 'to', 'version', 'when', 'kind', 'by', 'checkpoint', 'size', ''].map((t) => h('th', {}, t)))), h('tbody', {}, rows)),
    pane);
  refresh();
  diff();
}

function refresh() {
  if (!root) return;
  for (const b of root.querySelectorAll('button.restore-version')) b.disabled = app.busy;
}

// diffSeq numbers diff requests so that only the newest one is shown.
let diffSeq = 0;

async function diff() {
  const pane = root.querySelector('#version-diff');
  if (!pane || !pick.a || !pick.b) return;
  const mine = ++diffSeq;
  const [from, to] = seq(pick.a) <= seq(pick.b) ? [pick.a, pick.b] : [pick.b, pick.a];
  const d = await get('version-diff', { ws: app.ws, path: hist.path, from, to });
  if (mine !== diffSeq) return;
  pane.replaceChildren(diffList(`${from} → ${to}`, d.files, diff));
}

const seq = (ref) => Number(ref.slice(1));

async function restoreVersion(v) {
  if (app.busy) return;
  await act(async () => {
    const req = { checkpoint_id: v.ref, paths: [hist.path] };
    const plan = await send('restore', { ...req, dry_run: true });
    const ok = await confirm(`Restore ${hist.path} to version ${v.ref}?`, restorePlan(plan, h('p', {}, `The version ${by(v)} made.`)), 'Restore this version');
    if (ok) await send('restore', req);
  });
}
