// Requests to the daemon. Reads are GETs; actions are POSTs carrying the
// page's token in X-Ckpt-Token (the cookie alone is not enough).
const token = document.querySelector('meta[name="ckpt-token"]').content;

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(resp) {
  let body;
  try {
    body = await resp.json();
  } catch {
    body = { error: `${resp.status} ${resp.statusText}` };
  }
  if (!resp.ok) throw new APIError(resp.status, body.error || resp.statusText);
  return body;
}

export async function get(path, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''));
  const resp = await fetch(`/api/${path}?${q}`, { credentials: 'same-origin', cache: 'no-store' });
  return answer(resp);
}

export async function post(path, body) {
  const resp = await fetch(`/api/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-Ckpt-Token': token },
    body: JSON.stringify(body),
  });
  return answer(resp);
}

// events opens the workspace's event stream.
export function events(ws) {
  return new EventSource(`/api/events?${new URLSearchParams({ ws })}`);
}
