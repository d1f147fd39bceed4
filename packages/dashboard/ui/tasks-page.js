// The task list: every task the event log told of (the dashboard keeps the most recent), filtered
// by text, state, name, queue, worker and time range. It reloads when new events arrive.
import { useEffect, useState } from 'preact/hooks';
import { ago, api, html, StateBadge, Table } from './views.js';

const STATES = ['', 'PENDING', 'RECEIVED', 'STARTED', 'RETRY', 'SUCCESS', 'FAILURE', 'REVOKED', 'REJECTED', 'EXPIRED'];
const RANGES = { '': 'any time', 300000: 'last 5 min', 900000: 'last 15 min', 3600000: 'last hour' };

export function TasksPage({ eventsSeen }) {
  const [filter, setFilter] = useState({ q: '', state: '', name: '', queue: '', worker: '', range: '' });
  const [tasks, setTasks] = useState(undefined);
  const [error, setError] = useState(undefined);

  useEffect(() => {
    const params = new URLSearchParams();
    for (const key of ['q', 'state', 'name', 'queue', 'worker']) if (filter[key]) params.set(key, filter[key]);
    if (filter.range) params.set('from', String(Date.now() - Number(filter.range)));
    api(`api/tasks?${params}`).then(
      (body) => {
        setTasks(body.tasks);
        setError(undefined);
      },
      (failure) => setError(failure.message),
    );
  }, [filter, eventsSeen]);

  const field = (key, placeholder) =>
    html`<input
      placeholder=${placeholder}
      value=${filter[key]}
      data-test=${`filter-${key}`}
      onInput=${(event) => setFilter({ ...filter, [key]: event.currentTarget.value })}
    />`;
  return html`<section>
    <form class="filters" onSubmit=${(event) => event.preventDefault()}>
      ${field('q', 'Search id, name, args')}
      <select
        data-test="filter-state"
        value=${filter.state}
        onChange=${(event) => setFilter({ ...filter, state: event.currentTarget.value })}
      >
        ${STATES.map((state) => html`<option value=${state}>${state || 'any state'}</option>`)}
      </select>
      ${field('name', 'Task name')} ${field('queue', 'Queue')} ${field('worker', 'Worker')}
      <select value=${filter.range} onChange=${(event) => setFilter({ ...filter, range: event.currentTarget.value })}>
        ${Object.entries(RANGES).map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select>
    </form>
    ${error ? html`<p class="error">${error}</p>` : null}
    ${
      tasks === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table}
            test="tasks"
            headers=${['Task', 'Name', 'State', 'Queue', 'Worker', 'Retries', 'Runtime', 'Changed']}
            empty="No task matches (the list holds what the event log told since the dashboard started)."
            rows=${tasks.map(
              (task) =>
                html`<tr data-test="task-row" data-id=${task.id}>
                  <td><a href=${`#/tasks/${encodeURIComponent(task.id)}`} class="mono">${task.id}</a></td>
                  <td>${task.name ?? '?'}</td>
                  <td><${StateBadge} state=${task.state} /></td>
                  <td>${task.queue}</td>
                  <td>${task.worker ?? '-'}</td>
                  <td>${task.retries}</td>
                  <td>${task.runtime === undefined ? '-' : `${task.runtime} ms`}</td>
                  <td>${ago(task.updated)}</td>
                </tr>`,
            )}
          />`
    }
  </section>`;
}
