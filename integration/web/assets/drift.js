// Drift: what changed since the current checkpoint (the agent's last
// turn), the person's edits included, with patches.
import { get } from './api.js';
import { h } from './dom.js';
import { app } from './app.js';
import { diffList } from './diff.js';

let root = null;
let last = null;

export function mount(main) {
  root = main;
  root.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  return { load, render };
}

function load(ws) {
  return get('drift', { ws });
}

function render(d) {
  last = d;
  const st = app.status;
  const lr = st.last_run;
  root.replaceChildren(h('h2', {}, 'Changed since the last checkpoint'),
    h('p', { class: 'muted' }, 'Since ', h('code', {}, d.prev_checkpoint_id),
      lr ? ` (run ${lr.run_id} ${lr.open ? 'is still open' : 'ended'})` : '', ': edits by you, and by anything else outside a run.'),
    h('div', { id: 'drift-files' }, diffList(`${d.files.length} changed`, d.files, () => render(last))));
}
