// The failed-task registry and the dead letters: list, show (through the task page), retry or
// requeue, discard; one by one or the selected ones together.
import { useEffect, useState } from 'preact/hooks';
import { act, ActionButton, ago, api, html, notify, Table } from './views.js';

/** A list that reloads with the live feed, with a set of selected ids. */
function useList(path, key, eventsSeen) {
  const [items, setItems] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [selected, setSelected] = useState(new Set());
  const load = () =>
    api(path).then(
      (body) => {
        setItems(body[key]);
        setError(undefined);
      },
      (failure) => setError(failure.message),
    );
  useEffect(() => void load(), [path, eventsSeen]);
  const toggle = (id) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  return { items, error, selected, setSelected, toggle, load };
}

function Checkbox({ list, id }) {
  return html`<input type="checkbox" checked=${list.selected.has(id)} onChange=${() => list.toggle(id)} />`;
}

export function FailedPage({ eventsSeen }) {
  const list = useList('api/failed', 'tasks', eventsSeen);
  const ids = [...list.selected];
  const change = async (verb, body) => {
    const answer = await act(`api/failed/${verb}`, body);
    notify(verb === 'retry' ? `Sent ${answer.retried.length} task(s) again.` : `Discarded ${answer.discarded}.`);
    list.setSelected(new Set());
    await list.load();
  };
  return html`<section>
    <h2>Failed tasks</h2>
    <p class="muted">Tasks that raised after their retries, kept with their error and message.</p>
    <div class="actions">
      <${ActionButton}
        label=${`Retry selected (${ids.length})`}
        disabled=${ids.length === 0}
        run=${() => change('retry', { ids })}
      />
      <${ActionButton}
        label=${`Discard selected (${ids.length})`}
        danger
        disabled=${ids.length === 0}
        run=${() => change('discard', { ids })}
      />
      <${ActionButton}
        label="Retry all"
        confirmText="Send every failed task again?"
        run=${() => change('retry', { all: true })}
      />
      <${ActionButton}
        label="Discard all"
        danger
        confirmText="Remove every failed task from the registry?"
        run=${() => change('discard', { all: true })}
      />
    </div>
    ${list.error ? html`<p class="error">${list.error}</p>` : null}
    ${
      list.items === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table}
            test="failed"
            headers=${['', 'Task', 'Name', 'Queue', 'Runs', 'Failed', 'Error', 'Args']}
            empty="No failed tasks."
            rows=${list.items.map(
              (task) =>
                html`<tr data-test="failed-row" data-id=${task.id}>
                  <td><${Checkbox} list=${list} id=${task.id} /></td>
                  <td><a class="mono" href=${`#/tasks/${encodeURIComponent(task.id)}`}>${task.id}</a></td>
                  <td>${task.task}</td>
                  <td>${task.queue}</td>
                  <td>${task.attempts}</td>
                  <td>${ago(task.at)}</td>
                  <td>${task.error.name}: ${task.error.message}</td>
                  <td class="mono clip">${task.args ?? '?'}</td>
                </tr>`,
            )}
          />`
    }
  </section>`;
}

export function DeadPage({ eventsSeen }) {
  const list = useList('api/dead', 'letters', eventsSeen);
  const letters = list.items ?? [];
  const change = async (verb, chosen) => {
    // The broker requeues and discards per queue.
    const byQueue = new Map();
    for (const letter of chosen) byQueue.set(letter.queue, [...(byQueue.get(letter.queue) ?? []), letter.id]);
    let count = 0;
    for (const [queue, ids] of byQueue) {
      const answer = await act(`api/dead/${verb}`, { queue, ids });
      count += answer.requeued ?? answer.discarded;
    }
    notify(`${verb === 'requeue' ? 'Requeued' : 'Discarded'} ${count} dead letter(s).`);
    list.setSelected(new Set());
    await list.load();
  };
  const chosen = letters.filter((letter) => list.selected.has(letter.id));
  return html`<section>
    <h2>Dead letters</h2>
    <p class="muted">Tasks lost too often (their workers died) or that no worker could run.</p>
    <div class="actions">
      <${ActionButton}
        label=${`Requeue selected (${chosen.length})`}
        disabled=${chosen.length === 0}
        run=${() =>
          change(
            'requeue',
            chosen.filter((letter) => letter.requeueable),
          )}
      />
      <${ActionButton}
        label=${`Discard selected (${chosen.length})`}
        danger
        disabled=${chosen.length === 0}
        confirmText="Delete the selected dead letters for good?"
        run=${() => change('discard', chosen)}
      />
    </div>
    ${list.error ? html`<p class="error">${list.error}</p>` : null}
    ${
      list.items === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table}
            test="dead"
            headers=${['', 'Id', 'Task', 'Queue', 'Dead since', 'Reason', 'Args']}
            empty="No dead letters."
            rows=${letters.map(
              (letter) =>
                html`<tr data-test="dead-row" data-id=${letter.id}>
                  <td><${Checkbox} list=${list} id=${letter.id} /></td>
                  <td class="mono">${letter.id}</td>
                  <td>${letter.task ?? '?'}</td>
                  <td>${letter.queue}</td>
                  <td>${ago(letter.at)}</td>
                  <td>${letter.reason}</td>
                  <td class="mono clip">${letter.args ?? '(not readable)'}</td>
                </tr>`,
            )}
          />`
    }
  </section>`;
}
