// The overview: workers, queues (with pause, resume and purge) and the last hour's charts, all
// from the live feed's `overview` messages.
import { act, ActionButton, ago, BarChart, bytes, html, notify, Table } from './views.js';

const WORKER_HEADERS = [
  ...['Worker', 'Status', 'PID', 'Pool', 'Concurrency', 'Queues'],
  ...['Running', 'Reserved', 'Done', 'RSS', 'Heartbeat', ''],
];

/** Tasks a worker holds for a slot, not running yet (prefetched, or queued in a pool child). */
function reserved(worker) {
  return worker.active === undefined || worker.busy === undefined
    ? undefined
    : Math.max(0, worker.active - worker.busy);
}

/** What the online workers hold for a slot: waiting as much as a ready task in the queue. */
function reservedOf(workers) {
  return workers.reduce((sum, worker) => sum + (reserved(worker) ?? 0), 0);
}

export function OverviewPage({ overview, refresh }) {
  if (!overview) return html`<p class="loading">Waiting for the first overview…</p>`;
  const { workers, queues, history } = overview;
  const online = workers.filter((worker) => worker.status === 'online');
  const hour = (field) => history.reduce((sum, minute) => sum + (minute[field] ?? 0), 0);
  return html`<section>
    ${
      overview.eventsEnabled
        ? null
        : html`<p class="warning">
            This app writes no events (<code>events: true</code> is off in the app the dashboard loaded), so the task
            list and the charts stay empty. Turn events on in the app module the workers and senders load.
          </p>`
    }
    ${overview.error ? html`<p class="error">${overview.error}</p>` : null}
    <div class="cards">
      <div class="card"><b data-test="workers-online">${online.length}</b> workers online</div>
      <div class="card"><b data-test="succeeded-hour">${hour('succeeded')}</b> succeeded (1 h)</div>
      <div class="card"><b data-test="failed-hour">${hour('failed')}</b> failed (1 h)</div>
      <div class="card">
        <b data-test="waiting"
          >${queues.reduce((sum, queue) => sum + queue.ready + queue.delayed, 0) + reservedOf(online)}</b
        >
        waiting
      </div>
    </div>
    <h2>Workers</h2>
    <${Table}
      test="workers"
      headers=${WORKER_HEADERS}
      empty="No worker has been seen in the last hour."
      rows=${workers.map(
        (worker) =>
          html`<tr data-test="worker-row" data-hostname=${worker.hostname}>
            <td>${worker.hostname}</td>
            <td><span class=${`badge worker-${worker.status}`}>${worker.status}</span></td>
            <td>${worker.pid}</td>
            <td>${worker.pool ?? '-'}</td>
            <td data-test="worker-concurrency">
              ${worker.concurrency ?? '-'}${
                worker.autoscale
                  ? html` <span class="muted">(${worker.autoscale.min}..${worker.autoscale.max})</span>`
                  : ''
              }
            </td>
            <td>${(worker.queues ?? []).join(', ')}</td>
            <td data-test="running">${worker.busy ?? worker.active ?? '-'}</td>
            <td data-test="reserved">${reserved(worker) ?? '-'}</td>
            <td>${worker.processed ?? '-'}</td>
            <td>${bytes(worker.rss)}</td>
            <td>${ago(worker.heartbeat)}</td>
            <td>
              ${
                worker.status === 'online'
                  ? html`<${ActionButton}
                      label="Shut down"
                      danger
                      confirmText=${`Shut down ${worker.hostname}? Running tasks get its shutdown timeout.`}
                      run=${async () => {
                        await act(`api/workers/${encodeURIComponent(worker.hostname)}/shutdown`);
                        notify(`Asked ${worker.hostname} to shut down.`);
                      }}
                    />`
                  : null
              }
            </td>
          </tr>`,
      )}
    />
    <h2>Queues</h2>
    <${Table}
      test="queues"
      headers=${['Queue', 'Ready', 'Scheduled', 'Leased', 'Dead', 'Failed', 'Paused', '']}
      empty="No queue has been published to yet."
      rows=${queues.map(
        (queue) =>
          html`<tr data-test="queue-row" data-queue=${queue.name}>
            <td>${queue.name}</td>
            <td data-test="ready">${queue.ready}</td>
            <td data-test="scheduled">${queue.delayed}</td>
            <td data-test="active">${queue.active}</td>
            <td data-test="dead">${queue.dead}</td>
            <td data-test="failed">${queue.failed ?? '-'}</td>
            <td data-test="paused">${queue.paused ? 'paused' : 'no'}</td>
            <td>
              <div class="actions">
                ${
                  queue.paused
                    ? html`<${ActionButton}
                        label="Resume"
                        test="resume"
                        run=${async () => {
                          await act(`api/queues/${encodeURIComponent(queue.name)}/resume`);
                          notify(`Resumed ${queue.name}.`);
                          await refresh();
                        }}
                      />`
                    : html`<${ActionButton}
                        label="Pause"
                        test="pause"
                        run=${async () => {
                          await act(`api/queues/${encodeURIComponent(queue.name)}/pause`);
                          notify(`Paused ${queue.name}.`);
                          await refresh();
                        }}
                      />`
                }
                <${ActionButton}
                  label="Purge"
                  danger
                  test="purge"
                  confirmText=${`Delete every waiting task of ${queue.name}? They are recorded as REVOKED.`}
                  run=${async () => {
                    const { purged } = await act(`api/queues/${encodeURIComponent(queue.name)}/purge`);
                    notify(`Purged ${purged} task(s) from ${queue.name}.`);
                    await refresh();
                  }}
                />
              </div>
            </td>
          </tr>`,
      )}
    />
    <h2>Last hour</h2>
    <div class="charts">
      <${BarChart} title="Throughput (succeeded)" points=${history} field="succeeded" test="chart-throughput" />
      <${BarChart} title="Failures" points=${history} field="failed" test="chart-failures" />
      <${BarChart} title="Queue depth (waiting)" points=${history} field="waiting" test="chart-depth" />
    </div>
  </section>`;
}
