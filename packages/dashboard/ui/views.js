// Shared pieces of the dashboard page: the API client, formatting, tables, charts and buttons.
// Preact escapes every text it renders; nothing here sets HTML from data (task args are user data).
import { h } from 'preact';
import { useState } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';
/** True when the server refuses actions: the buttons are not shown (and the server refuses them anyway). */
export const readOnly = meta('celeriac-read-only') === 'true';
const csrfToken = meta('celeriac-csrf');

/** GETs a JSON document of the API (paths are relative: the dashboard may live under a prefix). */
export async function api(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  return answer(response);
}

/** POSTs an action with the page's CSRF token. */
export async function act(path, body = {}) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Celeriac-Csrf': csrfToken },
    body: JSON.stringify(body),
  });
  return answer(response);
}

async function answer(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.message ?? `${response.status} ${response.statusText}`);
  return body;
}

/** `1.2 s ago`, `3 min ago`. */
export function ago(ms, now = Date.now()) {
  if (ms === undefined || ms === null) return '-';
  const delta = Math.max(0, now - ms);
  if (delta < 1_000) return 'just now';
  if (delta < 60_000) return `${Math.round(delta / 1_000)} s ago`;
  if (delta < 3_600_000) return `${Math.round(delta / 60_000)} min ago`;
  return `${(delta / 3_600_000).toFixed(1)} h ago`;
}

/** A timestamp in local time, with milliseconds: 2026-11-26 03:59:19.515. */
export function time(ms) {
  if (ms === undefined || ms === null) return '-';
  const date = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  const clock = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return `${day} ${clock}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

export function bytes(n) {
  if (n === undefined || n === null) return '-';
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A coloured state label. */
export function StateBadge({ state }) {
  return html`<span class=${`badge state-${String(state).toLowerCase()}`} data-test="state">${state}</span>`;
}

/** A table with headers, rows, and a line for when there are none. */
export function Table({ headers, rows, empty, test }) {
  if (rows.length === 0) return html`<p class="empty" data-test=${test}>${empty}</p>`;
  return html`<table data-test=${test}>
    <thead>
      <tr>
        ${headers.map((header) => html`<th>${header}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** A button that runs an action, shows it is busy and reports its error; hidden when read-only. */
export function ActionButton({ label, run, confirmText, danger, test, disabled }) {
  const [busy, setBusy] = useState(false);
  if (readOnly) return null;
  const click = async () => {
    if (confirmText && !window.confirm(confirmText)) return;
    setBusy(true);
    try {
      await run();
    } catch (error) {
      notify(error.message, 'error');
    } finally {
      setBusy(false);
    }
  };
  return html`<button class=${danger ? 'danger' : ''} disabled=${busy || disabled} onClick=${click} data-test=${test}>
    ${label}
  </button>`;
}

const listeners = new Set();
/** Shows a short message at the top of the page. */
export function notify(text, kind = 'info') {
  for (const listener of listeners) listener({ text, kind, at: Date.now() });
}
/** Subscribes to notices; returns the unsubscribe. */
export function onNotice(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A bar chart of one series over the last hour, drawn as SVG. */
export function BarChart({ title, points, field, test }) {
  const width = 600;
  const height = 120;
  const values = points.map((point) => point[field] ?? 0);
  const max = Math.max(1, ...values);
  const bar = width / Math.max(1, values.length);
  const total = values.reduce((sum, value) => sum + value, 0);
  return html`<figure class="chart" data-test=${test}>
    <figcaption>${title} <span class="muted">(last hour, per minute; max ${max}, total ${total})</span></figcaption>
    <svg viewBox=${`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label=${title}>
      ${values.map((value, index) => {
        const barHeight = (value / max) * (height - 4);
        return html`<rect
          class=${`bar ${field}`}
          x=${index * bar + 1}
          y=${height - barHeight}
          width=${bar - 2}
          height=${barHeight}
          ><title>${new Date(points[index].minute).toLocaleTimeString()}: ${value}</title></rect
        >`;
      })}
    </svg>
  </figure>`;
}

/** Preformatted text (a JSON preview, a traceback), shown as text. */
export function Code({ text, test }) {
  return html`<pre class="code" data-test=${test}>${text}</pre>`;
}
