// The run view, the file change panel: every file a run changed, grouped
// under the tool call that changed it, with Rollback and Accept/Reject.
import { get } from './api.js';
import { h, shortTime, plural } from './dom.js';
import { app, act, confirm, send, restorePlan, link, showNotice } from './app.js';
import { diffList } from './diff.js';

let root = null;
let q = null;
let data = null;
let open = null; // what the diff pane shows: {kind: 'file'|'call'|'run', id}

export function mount(main, params) {
  root = main;
  q = params;
  data = null;
  open = null;
  root.replaceChildren(h('p', { class: 'muted' }, 'Loading the run…'));
  return { load, render, refresh };
}

function load(ws) {
  return get('run', { ws, session: q.get('session'), run: q.get('run') });
}

// files are the rows: every file of the run diff, and the pending ones;
// each with the tool call it is grouped under.
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

function render(v) {
  data = v;
  const r = v.run;
  const files = rows(v);
  const groups = [];
  for (const c of v.tool_calls) {
    const fs = files.filter((f) => f.call === c.tool_call_id);
    if (fs.length || c.open) groups.push({ call: c, files: fs });
  }
  const loose = files.filter((f) => !f.call);
  const head = h('div', { class: 'run-head' },
    h('h2', {}, `Run ${r.session_id} / ${r.run_id}`),
    h('span', { class: `badge ${r.open ? 'open' : 'ended'}`, id: 'run-state' }, r.open ? 'open: the agent is working' : 'ended'),
    h('p', { class: 'muted' }, `started ${shortTime(r.started_at)}`, r.ended_at ? ` · ended ${shortTime(r.ended_at)}` : '',
      ` · baseline `, h('code', {}, v.diff.prev_checkpoint_id), v.diff.checkpoint_id ? [' → ', h('code', {}, v.diff.checkpoint_id)] : ' → working tree',
      ` · ${plural(v.diff.files.length, 'file')}`),
    h('div', { class: 'actions' },
      h('button', { type: 'button', id: 'revert-run', class: 'danger', onclick: revertRun, 'aria-label': `Roll back run ${r.run_id}` }, 'Roll back this run'),
      h('button', { type: 'button', onclick: () => showDiff({ kind: 'run' }) }, 'Diff of the whole run')));
  const warn = v.diff.warning ? h('div', { class: 'warning', role: 'alert', id: 'run-warning' }, '⚠ ', v.diff.warning) : null;
  const table = h('div', { class: 'files', id: 'files' },
    groups.map((g) => group(g.call, g.files)),
    loose.length ? group(null, loose) : null,
    files.length ? null : h('p', { class: 'muted', id: 'no-files' }, r.open ? 'No file changed yet.' : 'This run changed no file.'));
  root.replaceChildren(...[head, warn, table, h('div', { id: 'diff-pane' })].filter(Boolean));
  refresh();
  if (open) showDiff(open);
}

function group(call, files) {
  const title = call
    ? h('div', { class: 'group-head' },
      h('span', { class: 'call-id' }, `tool call ${call.tool_call_id}`), ' ',
      call.command ? h('code', { class: 'command' }, call.command) : null,
      call.open ? h('span', { class: 'badge open' }, 'running') : null,
      h('button', { type: 'button', class: 'link', onclick: () => showDiff({ kind: 'call', id: call.tool_call_id }), 'aria-label': `Diff of tool call ${call.tool_call_id}` }, 'diff'))
    : h('div', { class: 'group-head' }, h('span', { class: 'call-id' }, 'outside any tool call'));
  return h('section', { class: 'group', dataset: { call: call ? call.tool_call_id : '' } }, title,
    h('table', { class: 'file-table' }, h('tbody', {}, files.map(fileRow))));
}

function fileRow(f) {
  const marked = f.review !== '';
  return h('tr', { dataset: { path: f.path, kind: f.kind, checkpoint: f.rollback, review: f.review } },
    h('td', {}, h('span', { class: `kind ${f.kind}` }, f.kind)),
    h('td', { class: 'path' }, f.pending
      ? h('code', {}, f.path)
      : h('button', { type: 'button', class: 'link', onclick: () => showDiff({ kind: 'file', id: f.path }), 'aria-label': `Diff of ${f.path}` }, f.path),
    f.by && f.by !== 'run' ? h('span', { class: 'by' }, f.by === 'both' ? ' also changed by you' : ` by ${f.by}`) : null,
    f.shared_with && f.shared_with.length ? h('span', { class: 'shared', title: 'Other runs or tool calls open at the time' }, ` shared with ${f.shared_with.map((p) => p.run_id + (p.tool_call_id ? '/' + p.tool_call_id : '')).join(', ')}`) : null),
    h('td', { class: 'mark' }, marked ? h('span', { class: `badge ${f.review}` }, f.review) : null),
    h('td', { class: 'row-actions' },
      h('button', { type: 'button', class: 'act rollback', onclick: () => rollback(f), 'aria-label': `Roll back ${f.path}`, title: f.rollback ? `Restore ${f.path} as it was at ${f.rollback}` : 'No checkpoint to roll back to' }, 'Rollback'),
      h('button', { type: 'button', class: 'act accept', onclick: () => mark(f, 'accepted'), 'aria-label': `Accept ${f.path}` }, 'Accept'),
      h('button', { type: 'button', class: 'act reject', onclick: () => mark(f, 'rejected'), 'aria-label': `Reject ${f.path}` }, 'Reject'),
      marked ? h('button', { type: 'button', class: 'act clear', onclick: () => mark(f, ''), 'aria-label': `Clear the mark on ${f.path}` }, 'Clear mark') : null,
      f.pending ? null : h('a', { href: link('history', { path: f.path }), 'aria-label': `History of ${f.path}` }, 'History')));
}

// refresh sets what may be clicked now: nothing while the run is open, an
// action is in flight, the file is marked or has no checkpoint.
function refresh() {
  if (!data || !root) return;
  const runOpen = data.run.open;
  const byPath = new Map(rows(data).map((f) => [f.path, f]));
  for (const tr of root.querySelectorAll('tr[data-path]')) {
    const f = byPath.get(tr.dataset.path);
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
  const pane = root.querySelector('#diff-pane');
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
