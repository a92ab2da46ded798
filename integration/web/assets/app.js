// The panel: routing between views, the live event stream, the confirm
// dialog and the actions every view shares.
import { get, post, events, APIError } from './api.js';
import { h, plural } from './dom.js';
import * as timeline from './timeline.js';
import * as run from './run.js';
import * as history from './history.js';
import * as drift from './drift.js';

const views = { timeline, run, history, drift };

// app is the page's state. stats count what the panel did, for tests and
// for the curious (window.ckpt in the console).
export const app = {
  ws: '',
  roots: [],
  status: null,
  busy: false, // an action (restore, revert, undo, review) is in flight
  view: null,
  gen: 0, // the latest reload: older ones are not applied
  loading: false,
  dirty: false,
  // lastRender: when the latest applied reload's DOM was built; lastPaint:
  // the frame after it (style, layout and paint done); firstRender and
  // firstPaint: the same of the page's first applied reload; all in ms
  // since the page's navigation began (performance.now()).
  stats: { reloadsStarted: 0, reloadsApplied: 0, reloadsDropped: 0, events: 0, posts: {}, lastRender: 0, lastPaint: 0, firstRender: 0, firstPaint: 0 },
};
window.ckpt = app;
app.onEvent = (type, data) => onEvent(type, data);

const $ = (id) => document.getElementById(id);

async function start() {
  try {
    const { workspaces } = await get('workspaces');
    app.roots = workspaces;
  } catch (e) {
    showNotice(`Cannot reach ckptd: ${e.message}`);
    return;
  }
  const q = params();
  app.ws = app.roots.includes(q.get('ws')) ? q.get('ws') : app.roots[0] || '';
  const sel = $('ws-select');
  sel.replaceChildren(...app.roots.map((r) => h('option', { value: r, selected: r === app.ws }, r)));
  $('ws-switch').hidden = app.roots.length < 2;
  $('ws-name').textContent = app.roots.length < 2 ? app.ws : '';
  sel.addEventListener('change', () => {
    app.ws = sel.value;
    connect();
    location.hash = link('timeline'); // runs and paths are the workspace's own
  });
  $('undo').addEventListener('click', undoLastRestore);
  window.addEventListener('hashchange', route);
  // The first load does not wait for the stream: when the stream opens
  // after the load started (an event may fall between the two), the view
  // is loaded once more, which costs little (rows that did not change are
  // kept).
  connect();
  route();
}

function params() {
  const hash = location.hash || '#/timeline';
  const i = hash.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : hash.slice(i + 1));
}

// link is the hash of a view with its parameters (the workspace included).
export function link(view, p = {}) {
  return `#/${view}?${new URLSearchParams({ ws: app.ws, ...p })}`;
}

function route() {
  const hash = location.hash || '#/timeline';
  const name = (hash.slice(2).split('?')[0] || 'timeline');
  const view = views[name] || timeline;
  for (const a of document.querySelectorAll('nav a')) {
    a.setAttribute('aria-current', a.dataset.view === name ? 'page' : 'false');
    a.href = link(a.dataset.view);
  }
  hideNotice();
  app.view = view.mount($('main'), params());
  reload('route');
}

let source = null;

// connect opens the workspace's event stream.
function connect() {
  if (source) source.close();
  if (!app.ws) return;
  source = events(app.ws);
  let opened = false;
  const before = app.stats.reloadsStarted;
  // Events before the stream opened are not sent: load again then. The
  // first time, only if a load started before the stream was open.
  source.onopen = () => {
    $('live').textContent = 'live';
    $('live').className = 'live on';
    if (opened) reload('reconnect');
    else if (app.stats.reloadsStarted > before) scheduleReload();
    opened = true;
  };
  source.onerror = () => { $('live').textContent = 'reconnecting…'; $('live').className = 'live off'; };
  for (const type of ['change', 'checkpoint', 'restore', 'review', 'lost']) {
    source.addEventListener(type, (ev) => {
      app.stats.events++;
      onEvent(type, JSON.parse(ev.data));
    });
  }
}

// onEvent: a restore (or a lost event) reloads at once, superseding any
// reload in flight; changes, checkpoints and review marks reload,
// coalesced. The view sees the event first (the run view patches a row
// at once), before the reload it starts. Before the first view is shown
// there is nothing to reload: its first load comes after the event.
export function onEvent(type, data) {
  if (!app.view) return;
  if (app.view.onEvent) app.view.onEvent(type, data);
  if (type === 'restore' || type === 'lost') reload(type);
  else scheduleReload();
}

function scheduleReload() {
  if (app.loading) {
    app.dirty = true;
    return;
  }
  reload('change');
}

// reload asks the daemon for the status and the view's data again; only
// the latest reload's answer is applied.
export async function reload(why) {
  const gen = ++app.gen;
  app.stats.reloadsStarted++;
  app.loading = true;
  app.dirty = false;
  const view = app.view;
  try {
    const [status, data] = await Promise.all([get('status', { ws: app.ws }), view ? view.load(app.ws) : null]);
    if (gen !== app.gen || view !== app.view) {
      app.stats.reloadsDropped++;
      return;
    }
    app.status = status;
    renderHeader();
    if (view) view.render(data, gen);
    app.stats.reloadsApplied++;
    app.stats.lastRender = performance.now();
    if (!app.stats.firstRender) app.stats.firstRender = app.stats.lastRender;
    document.body.dataset.gen = String(app.stats.reloadsApplied);
    notePaint();
  } catch (e) {
    if (gen === app.gen) showNotice(e.message);
  } finally {
    if (gen === app.gen) {
      app.loading = false;
      if (app.dirty) reload('dirty');
    }
  }
}

// notePaint records when the frame after the latest render is done.
function notePaint() {
  requestAnimationFrame(() => setTimeout(() => {
    app.stats.lastPaint = performance.now();
    if (!app.stats.firstPaint) app.stats.firstPaint = app.stats.lastPaint;
  }));
}

function renderHeader() {
  const undo = $('undo');
  const lr = app.status && app.status.last_restore;
  undo.disabled = app.busy || !lr;
  undo.title = lr ? `Restore the guard ${lr.guard_checkpoint_id} taken before restoring ${lr.checkpoint_id}` : 'No restore to undo';
}

export function showNotice(msg) {
  const n = $('notice');
  n.textContent = msg;
  n.hidden = false;
}

function hideNotice() {
  $('notice').hidden = true;
}

// confirm asks a second time, naming what will happen: resolves true on
// the confirm button (once, however often it is clicked).
export function confirm(title, body, okLabel) {
  const dlg = $('confirm');
  $('confirm-title').textContent = title;
  $('confirm-body').replaceChildren(body);
  const ok = $('confirm-ok');
  const cancel = $('confirm-cancel');
  ok.textContent = okLabel;
  ok.disabled = false;
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      ok.disabled = true;
      ok.onclick = cancel.onclick = dlg.oncancel = null;
      dlg.close();
      resolve(v);
    };
    ok.onclick = () => finish(true);
    cancel.onclick = () => finish(false);
    dlg.oncancel = () => finish(false);
    dlg.showModal();
    cancel.focus();
  });
}

// act runs one action: nothing else may start until it is done (the
// buttons show it disabled), then the view reloads from the daemon.
export async function act(fn) {
  if (app.busy) return;
  app.busy = true;
  refresh();
  try {
    await fn();
  } catch (e) {
    showNotice(e instanceof APIError && e.status === 409 ? `Busy: ${e.message}` : e.message);
  } finally {
    app.busy = false;
    refresh();
    reload('action');
  }
}

// send posts an action, counted by route and dry run.
export function send(route, body) {
  const k = `${route}${body.dry_run ? ':dry' : ''}`;
  app.stats.posts[k] = (app.stats.posts[k] || 0) + 1;
  return post(route, { ws: app.ws, ...body });
}

function refresh() {
  renderHeader();
  if (app.view && app.view.refresh) app.view.refresh();
}

// restorePlan shows what a restore's dry run will restore and keep.
// alsoKept are paths outside the restore's scope worth naming (the other
// changed files): they stay as they are.
export function restorePlan(res, extra, alsoKept = []) {
  const restored = res.restored || [];
  const kept = [...(res.kept || []).map((k) => ({ path: k.path, kind: k.kind, why: k.why })),
    ...((res.conflicts || []).map((c) => ({ path: c.path, kind: c.kind, why: c.reason })))];
  const named = new Set([...restored.map((r) => r.path), ...kept.map((k) => k.path)]);
  for (const k of alsoKept) if (!named.has(k.path)) { named.add(k.path); kept.push(k); }
  return h('div', { class: 'plan' },
    extra,
    h('h3', {}, `Will restore ${plural(restored.length, 'path')}`),
    restored.length ? h('ul', { class: 'plan-restore' }, restored.map((r) => h('li', {}, h('span', { class: `kind ${r.kind}` }, r.kind), ' ', h('code', {}, r.path), r.conflict ? ' (also changed by you: your edit is overwritten)' : ''))) : h('p', { class: 'muted' }, 'Nothing.'),
    h('h3', {}, `Will keep ${plural(kept.length, 'path')}`),
    kept.length ? h('ul', { class: 'plan-keep' }, kept.map((k) => h('li', {}, h('code', {}, k.path), ` — ${k.why}`))) : h('p', { class: 'muted' }, 'Nothing else changed.'),
    h('p', { class: 'muted' }, 'A guard checkpoint is taken first: Undo last restore brings this back.'));
}

async function undoLastRestore() {
  if (app.busy) return;
  const lr = app.status && app.status.last_restore;
  if (!lr) return;
  let plan;
  try {
    plan = await send('undo', { dry_run: true });
  } catch (e) {
    showNotice(e.message);
    return;
  }
  const ok = await confirm(`Undo the restore of ${lr.checkpoint_id}?`, restorePlan(plan, h('p', {}, `Brings back the guard ${lr.guard_checkpoint_id}.`)), 'Undo restore');
  if (ok) await act(() => send('undo', {}));
}

start();
