/**
 * A task name the app of `-A` does not register, said with the names it does, the closest to the
 * one given first: `call` warns with it, `beat add` refuses with it (both unless --force).
 */
import { runtimeOf } from '@celeriac/core/internal';

/** How many names the message lists before it says how many there are in all. */
const LISTED = 10;

/**
 * Why `task` looks mistyped, or undefined when the app registers it.
 * @param module the `-A` module, as the user named it
 */
export function unregisteredTask(app: object, module: string, task: string): string | undefined {
  const { registry } = runtimeOf(app);
  if (registry.get(task)) return undefined;
  const known = closestFirst(registry.names(), task);
  const listed =
    known.length === 0
      ? 'none'
      : known.length <= LISTED
        ? known.join(', ')
        : `${known.slice(0, LISTED).join(', ')}, ... (${known.length} in all)`;
  return `The app in ${module} registers no task named "${task}" (it registers: ${listed}).`;
}

/** `names` by their edit distance to `target`, the nearest first; ties keep their order. */
export function closestFirst(names: readonly string[], target: string): string[] {
  return names
    .map((name, index) => ({ name, index, distance: editDistance(name, target) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .map(({ name }) => name);
}

/** Insertions, deletions and substitutions that turn `a` into `b` (one row of the table at a time). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(substitution, (previous[j] as number) + 1, (row[j - 1] as number) + 1));
    }
    previous = row;
  }
  return previous[b.length] as number;
}
