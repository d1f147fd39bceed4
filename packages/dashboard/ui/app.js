// The dashboard page: navigation by the URL's hash, one live connection (server-sent events) that
// feeds the overview and tells the other pages when new events arrived. No polling: pages reload
// their data when the server pushes something new, or after an action.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { BeatPage } from './beat-page.js';
import { OverviewPage } from './overview-page.js';
import { DeadPage, FailedPage } from './registries-page.js';
import { TaskPage } from './task-page.js';
import { TasksPage } from './tasks-page.js';
import { api, html, onNotice, readOnly } from './views.js';

/** How long new events are gathered before the pages reload (events come in bursts). */
const EVENTS_SETTLE_MS = 300;
/** How long the page waits before it opens the live feed again after the server refused it. */
const LIVE_RETRY_MS = 5_000;

const PAGES = [
  ['#/', 'Overview'],
  ['#/tasks', 'Tasks'],
  ['#/failed', 'Failed'],
  ['#/dead', 'Dead letters'],
  ['#/beat', 'Beat'],
];

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const changed = () => setHash(location.hash || '#/');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

/**
 * Whether the page is live: connected to the dashboard, and the dashboard able to read the broker
 * (an overview that carries an error says it cannot: "disconnected", with the reason on hover).
 */
function LiveState({ connected, error }) {
  const state = !connected ? 'reconnecting…' : error === undefined ? 'live' : 'disconnected';
  return html`<span class=${`live ${state === 'live' ? 'on' : 'off'}`} data-test="live" title=${error ?? ''}>
    ${state}
  </span>`;
}

/** The live feed: the latest overview, a counter of event bursts, and whether it is connected. */
function useLiveFeed() {
  const [overview, setOverview] = useState(undefined);
  const [eventsSeen, setEventsSeen] = useState(0);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    let source;
    let settle;
    let again;
    const connect = () => {
      source = new EventSource('api/live');
      source.addEventListener('open', () => setConnected(true));
      source.addEventListener('error', () => {
        setConnected(false);
        // The browser retries a dropped feed by itself, but gives up on a refusal (503: too many
        // open feeds): try again later.
        if (source.readyState === EventSource.CLOSED) again = setTimeout(connect, LIVE_RETRY_MS);
      });
      source.addEventListener('overview', (message) => setOverview(JSON.parse(message.data)));
      source.addEventListener('events', () => {
        settle ??= setTimeout(() => {
          settle = undefined;
          setEventsSeen((count) => count + 1);
        }, EVENTS_SETTLE_MS);
      });
    };
    connect();
    return () => {
      clearTimeout(settle);
      clearTimeout(again);
      source.close();
    };
  }, []);
  const refresh = async () => setOverview(await api('api/overview'));
  return { overview, eventsSeen, connected, refresh };
}

function Notices() {
  const [notices, setNotices] = useState([]);
  useEffect(
    () =>
      onNotice((notice) => {
        setNotices((shown) => [...shown.slice(-2), notice]);
        setTimeout(() => setNotices((shown) => shown.filter((item) => item !== notice)), 6_000);
      }),
    [],
  );
  return html`<div class="notices">
    ${notices.map((notice) => html`<p class=${`notice ${notice.kind}`} data-test="notice">${notice.text}</p>`)}
  </div>`;
}

function App() {
  const hash = useHash();
  const feed = useLiveFeed();
  const taskId = hash.startsWith('#/tasks/') ? decodeURIComponent(hash.slice('#/tasks/'.length)) : undefined;
  const section = taskId !== undefined ? '#/tasks' : hash;
  let page;
  if (taskId !== undefined) page = html`<${TaskPage} id=${taskId} eventsSeen=${feed.eventsSeen} />`;
  else if (hash === '#/tasks') page = html`<${TasksPage} eventsSeen=${feed.eventsSeen} />`;
  else if (hash === '#/failed') page = html`<${FailedPage} eventsSeen=${feed.eventsSeen} />`;
  else if (hash === '#/dead') page = html`<${DeadPage} eventsSeen=${feed.eventsSeen} />`;
  else if (hash === '#/beat') page = html`<${BeatPage} eventsSeen=${feed.eventsSeen} />`;
  else page = html`<${OverviewPage} overview=${feed.overview} refresh=${feed.refresh} />`;
  return html`<header>
      <h1>${document.title}</h1>
      <nav>
        ${PAGES.map(([href, label]) => html`<a href=${href} class=${section === href ? 'current' : ''}>${label}</a>`)}
      </nav>
      <${LiveState} connected=${feed.connected} error=${feed.overview?.error} />
      ${readOnly ? html`<span class="badge read-only">read-only</span>` : null}
    </header>
    <${Notices} />
    <main>${page}</main>`;
}

const root = document.getElementById('root');
root.textContent = '';
render(html`<${App} />`, root);
