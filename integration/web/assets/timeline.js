// The timeline: runs (turns) by session with their tool calls, the
// person's edits between turns, and the checkpoints, a page at a time.
import { get } from './api.js';
import { h, shortTime, plural } from './dom.js';
import { app, link } from './app.js';

const pageSize = 50;
let root = null;
let older = []; // checkpoints of the pages loaded after the first

export function mount(main) {
  root = main;
  older = [];
  root.replaceChildren(h('p', { class: 'muted' }, 'Loading the timeline…'));
  return { load, render };
}

async function load(ws) {
  const [runs, page] = await Promise.all([get('runs', { ws }), get('checkpoints', { ws, n: pageSize })]);
  return { runs: runs.runs, page };
}

function render(d) {
  const st = app.status;
  const person = (st.changes || []).filter((c) => c.by !== 'run');
  const sessions = new Map();
  for (const r of d.runs) {
    if (!sessions.has(r.session_id)) sessions.set(r.session_id, []);
    sessions.get(r.session_id).push(r);
  }
  const drift = person.length
    ? h('a', { class: 'drift-note', href: link('drift'), id: 'you-changed' }, `You changed ${plural(person.length, 'file')} since checkpoint ${st.current_checkpoint_id}: see Drift`)
    : null;
  const restore = st.last_restore
    ? h('p', { class: 'restore-note' }, `Last restore: ${st.last_restore.checkpoint_id} at ${shortTime(st.last_restore.at)}; its guard `, h('code', {}, st.last_restore.guard_checkpoint_id), ' (Undo last restore brings it back)')
    : null;
  const runsEl = h('section', { class: 'sessions', 'aria-label': 'Sessions and runs' }, h('h2', {}, 'Sessions'),
    d.runs.length ? [...sessions].map(([s, runs]) => h('div', { class: 'session' }, h('h3', {}, `session ${s}`),
      h('ol', { class: 'runs' }, runs.map(runItem)))) : h('p', { class: 'muted' }, 'No run yet.'));
  const cps = [...d.page.checkpoints, ...older];
  const more = older.length ? older.more : d.page.more;
  const list = h('ol', { class: 'checkpoints', id: 'checkpoints' }, cps.map(cpItem));
  const moreBtn = more ? h('button', { type: 'button', id: 'older', onclick: () => loadOlder(cps[cps.length - 1].checkpoint_id) }, 'Older checkpoints') : null;
  root.replaceChildren(...[h('h2', { class: 'sr-only' }, 'Timeline'), drift, restore,
    h('div', { class: 'timeline' }, runsEl, h('section', { 'aria-label': 'Checkpoints' }, h('h2', {}, 'Checkpoints'), list, moreBtn))].filter(Boolean));
}

function runItem(r) {
  return h('li', { class: 'run', dataset: { run: r.run_id } },
    r.drift && r.drift.length ? h('p', { class: 'between' }, `you changed ${plural(r.drift.length, 'file')} between turns: `, r.drift.slice(0, 5).join(', '), r.drift.length > 5 ? '…' : '') : null,
    h('a', { href: link('run', { session: r.session_id, run: r.run_id }) }, `run ${r.run_id}`), ' ',
    h('span', { class: `badge ${r.open ? 'open' : 'ended'}` }, r.open ? 'open' : 'ended'),
    h('span', { class: 'muted' }, ` ${shortTime(r.started_at)}`),
    r.tool_calls.length ? h('ul', { class: 'calls' }, r.tool_calls.map((c) => h('li', {}, h('span', { class: 'call-id' }, c.tool_call_id), ' ', h('code', {}, c.command || ''), c.open ? ' (running)' : ''))) : null);
}

const reasons = {
  pre_restore_guard: 'guard',
  end_of_turn: 'end of turn',
  pre_run_drift_rebase: 'your edits',
  pre_write: 'tool call',
};

function cpItem(c) {
  return h('li', { class: `cp ${c.reason}`, dataset: { id: c.checkpoint_id } },
    h('code', {}, c.checkpoint_id), ' ', h('span', { class: `reason ${c.reason}` }, reasons[c.reason] || c.reason.replaceAll('_', ' ')),
    h('span', { class: 'muted' }, ` ${shortTime(c.created_at)}`),
    c.run_id ? h('span', {}, ` run ${c.run_id}${c.tool_call_id ? ' / ' + c.tool_call_id : ''}`) : null,
    c.message ? h('span', { class: 'msg' }, ` — ${c.message}`) : null);
}

async function loadOlder(before) {
  const page = await get('checkpoints', { ws: app.ws, before, n: pageSize });
  const list = root.querySelector('#checkpoints');
  older.push(...page.checkpoints);
  older.more = page.more;
  list.append(...page.checkpoints.map(cpItem));
  const btn = root.querySelector('#older');
  if (!page.more) btn.remove();
  else btn.onclick = () => loadOlder(page.checkpoints[page.checkpoints.length - 1].checkpoint_id);
}
