// Beat: the periodic entries (in code and added at run time), their last and next firing, the
// scheduler that leads; runtime entries can be added and removed.
import { useEffect, useState } from 'preact/hooks';
import { act, ActionButton, api, html, notify, readOnly, Table, time } from './views.js';

export function BeatPage({ eventsSeen }) {
  const [beat, setBeat] = useState(undefined);
  const [error, setError] = useState(undefined);
  const load = () =>
    api('api/beat').then(
      (body) => {
        setBeat(body);
        setError(undefined);
      },
      (failure) => setError(failure.message),
    );
  useEffect(() => void load(), [eventsSeen]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!beat) return html`<p class="loading">Loading…</p>`;
  if (!beat.available) return html`<p class="muted">This app has no periodic tasks support.</p>`;
  return html`<section>
    <h2>Beat</h2>
    <p data-test="beat-leader">
      ${
        beat.leader
          ? `Leader: ${beat.leader.owner} (lease ${(beat.leader.ttl / 1000).toFixed(1)} s left)`
          : 'Leader: none (no scheduler runs)'
      }
    </p>
    <${Table}
      test="beat"
      headers=${['Entry', 'Task', 'Schedule', 'Source', 'Last fired', 'Next', '']}
      empty="No periodic entries."
      rows=${beat.entries.map(
        (entry) =>
          html`<tr>
            <td>${entry.name}</td>
            <td>${entry.task}</td>
            <td>${entry.description}</td>
            <td>${entry.source}</td>
            <td>${time(entry.lastFired)}</td>
            <td>${time(entry.next)}</td>
            <td>
              ${
                entry.source === 'runtime'
                  ? html`<${ActionButton}
                      label="Remove"
                      danger
                      confirmText=${`Remove the entry ${entry.name}?`}
                      run=${async () => {
                        await act('api/beat/remove', { name: entry.name });
                        notify(`Removed ${entry.name}.`);
                        await load();
                      }}
                    />`
                  : null
              }
            </td>
          </tr>`,
      )}
    />
    ${readOnly ? null : html`<${AddEntry} added=${load} />`}
  </section>`;
}

function AddEntry({ added }) {
  const [form, setForm] = useState({ name: '', task: '', kind: 'every', schedule: '', args: '[]' });
  const input = (key, placeholder) =>
    html`<input
      placeholder=${placeholder}
      value=${form[key]}
      onInput=${(event) => setForm({ ...form, [key]: event.currentTarget.value })}
    />`;
  const submit = async () => {
    let args;
    try {
      args = JSON.parse(form.args || '[]');
    } catch {
      throw new Error('Arguments must be a JSON array, e.g. ["feed", 3].');
    }
    await act('api/beat/add', { name: form.name, task: form.task, [form.kind]: form.schedule, args });
    notify(`Added ${form.name}.`);
    setForm({ ...form, name: '', schedule: '' });
    await added();
  };
  return html`<h3>Add a runtime entry</h3>
    <form class="filters" onSubmit=${(event) => event.preventDefault()}>
      ${input('name', 'Entry name')} ${input('task', 'Task name')}
      <select value=${form.kind} onChange=${(event) => setForm({ ...form, kind: event.currentTarget.value })}>
        <option value="every">every</option>
        <option value="cron">cron</option>
      </select>
      ${input('schedule', form.kind === 'every' ? '30s' : '*/5 * * * *')} ${input('args', 'Args (JSON array)')}
      <${ActionButton} label="Add" run=${submit} />
    </form>`;
}
