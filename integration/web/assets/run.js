// The run view, the file change panel: every file a run changed, grouped
// under the tool call that changed it, with Rollback and Accept/Reject.
//
// The list is windowed (filelist.js). A change or review event of this
// run patches its file's row at once; the reload the event also starts
// confirms it. A patch is kept over the reloads that started before its
// event arrived (they may not have seen it) and dropped by the first one
// that started after (it has).
import { get } from './api.js';
import { h, shortTime, plural } from './dom.js';
import { app, act, confirm, send, restorePlan, link, showNotice } from './app.js';
import { diffList } from './diff.js';
import { FileList } from './filelist.js';

let root = null;
let q = null;
let data = null;
let base = []; // the rows of the latest applied reload
let patches = new Map(); // path → {gen, row (null: gone)} from change events
let marks = new Map(); // path → {gen, mark} from review events
let list = null;
let top = null; // the run's head, its warning and the empty note
let pane = null; // the diff pane
let open = null; // what the diff pane shows: {kind: 'file'|'call'|'run', id}

export function mount(main, params) {
  root = main;
  q = params;
  data = null;
  base = [];
  patches = new Map();
  marks = new Map();
  list = null;
  open = null;
  root.replaceChildren(h('p', { class: 'muted' }, 'Loading the run…'));
  return { load, render, refresh, onEvent, reveal: (path) => list && list.reveal(path) };
}

function load(ws) {
  return get('run', { ws, session: q.get('session'), run: q.get('run') });
}

// rows are every file of the run diff, and the pending ones; each with the
// tool call it is grouped under.
function rows(v) {
  const reviews = new Map(v.reviews.map((r) => [r.path, r.mark]));
  const callOf = new Map();
  for (const c of v.tool_calls) for (const ch of c.changes || []) if (!callOf.has(ch.path)) callOf.set(ch.path, c.tool_call_id);
  const out = v.diff.files.map((f) => ({
    ...f,
    // The run diff's checkpoint for the file is its first-touch
    // checkpoint, the authority; the run's baseline when it has none.
    rollback: f.checkpoint_id || v.diff.prev_checkpoint_id || '',
    review: reviews.get(f.path) || '',
    call: callOf.get(f.path) || '',
  }));
  const seen = new Set(out.map((f) => f.path));
  for (const p of v.pending) {
    if (seen.has(p.path)) continue;
    out.push({ path: p.path, kind: 'pending', rollback: '', review: '', call: p.tool_call_id, pending: true });
  }
  return out;
}

// render applies reload gen's answer.
function render(v, gen) {
  data = v;
  base = rows(v);
  for (const [p, pt] of patches) if (pt.gen < gen) patches.delete(p);
  for (const [p, m] of marks) if (m.gen < gen) marks.delete(p);
  const r = v.run;
  const head = h('div', { class: 'run-head' },
    h('h2', {}, `Run ${r.session_id} / ${r.run_id}`),
    h('span', { class: `badge ${r.open ? 'open' : 'ended'}`, id: 'run-state' }, r.open ? 'open: the agent is working' : 'ended'),
    h('p', { class: 'muted' }, `started ${shortTime(r.started_at)}`, r.ended_at ? ` · ended ${shortTime(r.ended_at)}` : '',
      ` · baseline `, h('code', {}, v.diff.prev_checkpoint_id), v.diff.checkpoint_id ? [' → ', h('code', {}, v.diff.checkpoint_id)] : ' → working tree',
      ` · ${plural(v.diff.files.length, 'file')}`),
    h('div', { class: 'actions' },
      h('button', { type: 'button', id: 'revert-run', class: 'danger', onclick: revertRun, 'aria-label': `Roll back run ${r.run_id}` }, 'Roll back this run'),
      h('button', { type: 'button', id: 'diff-run', onclick: () => showDiff({ kind: 'run' }) }, 'Diff of the whole run')));
  const warn = v.diff.warning ? h('div', { class: 'warning', role: 'alert', id: 'run-warning' }, '⚠ ', v.diff.warning) : null;
  if (!list) {
    top = h('div', { class: 'run-top' });
    list = new FileList({ row: fileRow, sig, head: groupHead, headSig, state: rowState });
    pane = h('div', { id: 'diff-pane' });
    root.replaceChildren(top, list.el, pane);
  }
  // The head is built again: keep the focus on the button that had it.
  const focused = top.contains(document.activeElement) ? document.activeElement.id : '';
  top.replaceChildren(...[head, warn, h('p', { class: 'muted', id: 'no-files', hidden: true })].filter(Boolean));
  if (focused) document.getElementById(focused)?.focus();
  showRows();
  if (open) showDiff(open);
}

// showRows lays the rows (the reload's, with the events' patches over
// them) out in their groups.
function showRows() {
  const byPath = new Map(base.map((f) => [f.path, f]));
  for (const [p, pt] of patches) {
    if (pt.row) byPath.set(p, pt.row);
    else byPath.delete(p);
  }
  for (const [p, m] of marks) {
    const f = byPath.get(p);
    if (f) byPath.set(p, { ...f, review: m.mark });
  }
  const files = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const byCall = new Map();
  for (const f of files) {
    if (!byCall.has(f.call)) byCall.set(f.call, []);
    byCall.get(f.call).push(f);
  }
  const groups = [];
  for (const c of data.tool_calls) {
    const fs = byCall.get(c.tool_call_id) || [];
    byCall.delete(c.tool_call_id);
    if (fs.length || c.open) groups.push({ key: `call ${c.tool_call_id}`, call: c, files: fs });
  }
  const loose = byCall.get('') || [];
  byCall.delete('');
  // A tool call the latest reload did not know yet (its event came first).
  for (const [id, fs] of byCall) groups.push({ key: `call ${id}`, call: { tool_call_id: id, command: '', open: true }, files: fs });
  if (loose.length) groups.push({ key: 'loose', call: null, files: loose });
  const none = top.querySelector('#no-files');
  none.hidden = files.length > 0;
  none.textContent = data.run.open ? 'No file changed yet.' : 'This run changed no file.';
  list.setGroups(groups);
  refresh();
}

// onEvent patches the row of a file this run changed or a mark was set
// on, before the reload the event started answers.
function onEvent(type, ev) {
  if (!data || !list) return;
  if (type === 'change' && ev.change && ev.change.by === 'run' && ofThisRun(ev.change)) patchChange(ev.change);
  if (type === 'review' && ev.review && ev.review.session_id === data.run.session_id && ev.review.run_id === data.run.run_id) {
    marks.set(ev.review.path, { gen: app.gen, mark: ev.review.mark });
    showRows();
  }
}

function ofThisRun(c) {
  const r = data.run;
  if (c.session_id === r.session_id && c.run_id === r.run_id) return true;
  return (c.shared_with || []).some((p) => p.session_id === r.session_id && p.run_id === r.run_id);
}

// patchChange turns a change into the row the run diff will show: its
// kind against the run's baseline, as far as the rows already say.
function patchChange(c) {
  const was = patches.has(c.path) ? patches.get(c.path).row : base.find((f) => f.path === c.path) || null;
  let kind = c.kind;
  if (was && !was.pending) {
    if (was.kind === 'added' && kind === 'deleted') {
      patches.set(c.path, { gen: app.gen, row: null }); // added and gone again: nothing changed
      showRows();
      return;
    }
    if (was.kind === 'added') kind = 'added';
    else if (kind === 'added') kind = 'modified';
  }
  const row = { review: '', rollback: '', by: 'run', ...(was || {}), path: c.path, kind, pending: false, provisional: true, call: (was && was.call) || c.tool_call_id || '' };
  patches.set(c.path, { gen: app.gen, row });
  showRows();
}

// sig is what a row shows: it is rebuilt when this changes.
function sig(f) {
  const shared = (f.shared_with || []).map((p) => `${p.run_id}/${p.tool_call_id || ''}`).join(',');
  return [f.kind, f.rollback, f.review, f.by || '', shared, f.pending ? 1 : 0, f.provisional ? 1 : 0, f.call].join('|');
}

function headSig(g) {
  return g.call ? `${g.call.tool_call_id}|${g.call.command || ''}|${g.call.open ? 1 : 0}` : '';
}

function groupHead(g) {
  const call = g.call;
  return call
    ? h('div', { class: 'group-head' },
      h('span', { class: 'call-id' }, `tool call ${call.tool_call_id}`), ' ',
      call.command ? h('code', { class: 'command', title: call.command }, call.command) : null,
      call.open ? h('span', { class: 'badge open' }, 'running') : null,
      h('button', { type: 'button', class: 'link', onclick: () => showDiff({ kind: 'call', id: call.tool_call_id }), 'aria-label': `Diff of tool call ${call.tool_call_id}` }, 'diff'))
    : h('div', { class: 'group-head' }, h('span', { class: 'call-id' }, 'outside any tool call'));
}

function fileRow(f) {
  const marked = f.review !== '';
  return h('tr', { tabindex: '-1', dataset: { path: f.path, kind: f.kind, checkpoint: f.rollback, review: f.review, ...(f.provisional ? { provisional: '1' } : {}) } },
    h('td', {}, h('span', { class: `kind ${f.kind}` }, f.kind)),
    h('td', { class: 'path', title: f.path }, f.pending
      ? h('code', {}, f.path)
      : h('button', { type: 'button', class: 'link', onclick: () => showDiff({ kind: 'file', id: f.path }), 'aria-label': `Diff of ${f.path}` }, f.path),
    f.by && f.by !== 'run' ? h('span', { class: 'by' }, f.by === 'both' ? ' also changed by you' : ` by ${f.by}`) : null,
    f.shared_with && f.shared_with.length ? h('span', { class: 'shared', title: 'Other runs or tool calls open at the time' }, ` shared with ${f.shared_with.map((p) => p.run_id + (p.tool_call_id ? '/' + p.tool_call_id : '')).join(', ')}`) : null),
    h('td', { class: 'mark' }, marked ? h('span', { class: `badge ${f.review}` }, f.review) : null),
    h('td', {}, h('div', { class: 'row-actions' },
      h('button', { type: 'button', class: 'act rollback', onclick: () => rollback(f), 'aria-label': `Roll back ${f.path}`, title: f.rollback ? `Restore ${f.path} as it was at ${f.rollback}` : 'No checkpoint to roll back to' }, 'Rollback'),
      h('button', { type: 'button', class: 'act accept', onclick: () => mark(f, 'accepted'), 'aria-label': `Accept ${f.path}` }, 'Accept'),
      h('button', { type: 'button', class: 'act reject', onclick: () => mark(f, 'rejected'), 'aria-label': `Reject ${f.path}` }, 'Reject'),
      marked ? h('button', { type: 'button', class: 'act clear', onclick: () => mark(f, ''), 'aria-label': `Clear the mark on ${f.path}` }, 'Clear mark') : null,
      f.pending ? null : h('a', { class: 'history', href: link('history', { path: f.path }), 'aria-label': `History of ${f.path}` }, 'History'))));
}

// rowState sets what may be clicked in a row: nothing while the run is
// open, an action is in flight, the file is marked or has no checkpoint.
function rowState(tr, f) {
  const runOpen = data.run.open;
  const why = runOpen ? 'The run is still open: the agent is working'
    : app.busy ? 'A restore is in flight'
      : f.review ? `Already ${f.review}`
        : !f.rollback ? 'No checkpoint to roll back to' : '';
  for (const b of tr.querySelectorAll('button.rollback, button.accept, button.reject')) {
    b.disabled = why !== '';
    if (why) b.title = why;
  }
  const clear = tr.querySelector('button.clear');
  if (clear) clear.disabled = runOpen || app.busy;
}

function refresh() {
  if (!data || !list) return;
  list.rendered(rowState);
  const runOpen = data.run.open;
  const rv = root.querySelector('#revert-run');
  if (rv) {
    rv.disabled = runOpen || app.busy || data.diff.files.length === 0;
    rv.title = runOpen ? 'The run is still open: the agent is working' : app.busy ? 'A restore is in flight' : '';
  }
}

async function rollback(f) {
  if (app.busy || data.run.open || f.review || !f.rollback) return;
  await act(async () => {
    const req = { checkpoint_id: f.rollback, paths: [f.path] };
    const plan = await send('restore', { ...req, dry_run: true });
    const others = [
      ...data.diff.files.filter((o) => o.path !== f.path).map((o) => ({ path: o.path, why: 'changed by this run: not part of this rollback' })),
      ...(app.status.changes || []).filter((c) => c.path !== f.path).map((c) => ({ path: c.path, why: c.by === 'run' ? 'changed since the last checkpoint' : 'your change since the last checkpoint' })),
    ];
    const ok = await confirm(`Roll back ${f.path}?`, restorePlan(plan, h('p', {}, 'Restores ', h('code', {}, f.path), ' as it was at ', h('code', {}, f.rollback), ', before this run first changed it.'), others), `Roll back ${f.path}`);
    if (ok) await send('restore', req);
  });
}

async function revertRun() {
  if (app.busy || data.run.open) return;
  const r = data.run;
  await act(async () => {
    const req = { session_id: r.session_id, run_id: r.run_id };
    const plan = await send('revert', { ...req, dry_run: true });
    const ok = await confirm(`Roll back run ${r.run_id}?`, restorePlan(plan, h('p', {}, 'Only what this run changed goes back to before the run; what changed since by you or others is kept.')), 'Roll back this run');
    if (ok) await send('revert', req);
  });
}

async function mark(f, m) {
  if (app.busy || data.run.open || (m && f.review)) return;
  await act(() => send('review', { session_id: data.run.session_id, run_id: data.run.run_id, path: f.path, mark: m }));
}

async function showDiff(what) {
  open = what;
  if (!pane) return;
  const p = { ws: app.ws, session: data.run.session_id, run: data.run.run_id };
  let title = `Diff of run ${data.run.run_id}`;
  if (what.kind === 'file') { p.path = what.id; title = `Diff of ${what.id} in run ${data.run.run_id}`; }
  if (what.kind === 'call') { p.call = what.id; title = `Diff of tool call ${what.id}`; }
  try {
    const d = await get('run/patch', p);
    if (open !== what) return;
    pane.replaceChildren(diffList(title, d.files, () => showDiff(what)));
  } catch (e) {
    showNotice(e.message);
  }
}
