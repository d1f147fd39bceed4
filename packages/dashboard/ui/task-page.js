// One task: its state, arguments, result or error with its traceback, the timeline of its events,
// its whole workflow as a graph, and the actions that apply (revoke, retry or discard when failed).
import { useEffect, useState } from 'preact/hooks';
import { act, ActionButton, api, Code, html, notify, StateBadge, Table, time } from './views.js';
import { WorkflowGraph } from './workflow-graph.js';

/** How many tasks of a workflow are asked for at first, and added by each "Show more". */
const WORKFLOW_NODES = 200;

export function TaskPage({ id, eventsSeen }) {
  const [task, setTask] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [nodes, setNodes] = useState(WORKFLOW_NODES);
  const load = () =>
    api(`api/tasks/${encodeURIComponent(id)}?nodes=${nodes}`).then(
      (body) => {
        setTask(body);
        setError(undefined);
      },
      (failure) => setError(failure.message),
    );
  useEffect(() => void load(), [id, eventsSeen, nodes]);

  if (error) return html`<p class="error" data-test="task-error">${error}</p>`;
  if (!task) return html`<p class="loading">Loading ${id}…</p>`;
  const state = task.summary?.state ?? task.record?.state ?? (task.failed ? 'FAILURE' : 'PENDING');
  const name = task.summary?.name ?? task.record?.task ?? task.failed?.task ?? '?';
  const failure = task.failed?.error ?? task.record?.error;
  const workflow = task.workflow;
  return html`<section data-test="task-page">
    <h2><span class="mono">${id}</span> <${StateBadge} state=${state} /></h2>
    <dl class="facts">
      <dt>Task</dt>
      <dd data-test="task-name">${name}</dd>
      <dt>Queue</dt>
      <dd>${task.summary?.queue ?? task.failed?.queue ?? '-'}</dd>
      <dt>Worker</dt>
      <dd>${task.summary?.worker ?? '-'}</dd>
      <dt>Retries</dt>
      <dd>${task.summary?.retries ?? task.record?.retries ?? 0}</dd>
      ${
        task.failed
          ? html`<dt>Runs</dt>
              <dd>${task.failed.attempts}</dd>`
          : null
      }
    </dl>
    <div class="actions">
      ${
        task.failed
          ? html`<${ActionButton}
                label="Retry"
                test="retry"
                run=${async () => {
                  await act('api/failed/retry', { ids: [id] });
                  notify(`Sent ${id} again.`);
                  await load();
                }}
              />
              <${ActionButton}
                label="Discard"
                danger
                confirmText="Remove this task from the failed-task registry?"
                run=${async () => {
                  await act('api/failed/discard', { ids: [id] });
                  notify(`Discarded ${id}.`);
                  await load();
                }}
              />`
          : null
      }
      ${
        ['SUCCESS', 'FAILURE', 'REVOKED', 'REJECTED', 'EXPIRED'].includes(state)
          ? null
          : html`<${ActionButton}
                label="Revoke"
                test="revoke"
                run=${async () => {
                  await act(`api/tasks/${encodeURIComponent(id)}/revoke`);
                  notify(`Revoked ${id}.`);
                }}
              />
              <${ActionButton}
                label="Revoke and terminate"
                danger
                confirmText="Stop this task even if it is running?"
                run=${async () => {
                  await act(`api/tasks/${encodeURIComponent(id)}/revoke`, { terminate: true });
                  notify(`Revoked and terminated ${id}.`);
                }}
              />`
      }
    </div>
    <h3>Arguments</h3>
    ${
      task.args === null
        ? html`<p class="muted">
            Not known: turn on <code>events: { payloads: true }</code> to see arguments of any task.
          </p>`
        : html`<${Code} text=${task.args} test="task-args" />`
    }
    ${
      task.record?.result !== undefined && state === 'SUCCESS'
        ? html`<h3>Result</h3>
            <${Code} text=${task.record.result} test="task-result" />`
        : null
    }
    ${
      failure && state !== 'SUCCESS'
        ? html`<h3>Error</h3>
            <p data-test="task-failure"><b>${failure.name}</b>: ${failure.message}</p>
            ${failure.stack ? html`<${Code} text=${failure.stack} test="task-traceback" />` : null}`
        : null
    }
    ${
      workflow
        ? html`<h3>Workflow</h3>
            <${WorkflowGraph} graph=${workflow} id=${id} showMore=${() => setNodes(nodes + WORKFLOW_NODES)} />`
        : null
    }
    <h3>Timeline</h3>
    <${Table}
      test="timeline"
      headers=${['When', 'Event', 'Worker', 'Detail']}
      empty="No events of this task in the log."
      rows=${task.events.map(
        (event) =>
          html`<tr>
            <td>${time(event.timestamp)}</td>
            <td>${event.type}</td>
            <td>${event.hostname ?? '-'}</td>
            <td>${detail(event)}</td>
          </tr>`,
      )}
    />
  </section>`;
}

function detail(event) {
  switch (event.type) {
    case 'task-received':
      return `delivery ${event.delivery}`;
    case 'task-succeeded':
      return `${event.runtime} ms`;
    case 'task-failed':
      return `${event.error.name}: ${event.error.message}`;
    case 'task-retried':
      return `retry in ${event.delay} ms after ${event.error.name}: ${event.error.message}`;
    case 'task-revoked':
    case 'task-rejected':
      return event.reason;
    case 'task-progress':
      return event.state;
    default:
      return event.retries ? `retries ${event.retries}` : '';
  }
}
