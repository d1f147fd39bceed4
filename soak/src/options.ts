/**
 * The soak's options, from the command line (`npm run soak -- --tasks 10000 --seconds 600`): how
 * much work, for how long, which faults on which seeded schedule, on which transport.
 */
import { parseArgs } from 'node:util';

/** The faults the soak can inject. */
export const FAULT_KINDS = ['worker-kill', 'child-kill', 'client-kill', 'broker-restart', 'garbage'] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What one soak run does. */
export interface SoakOptions {
  /** Tasks sent, spread evenly over the run. @defaultValue 10_000 */
  tasks: number;
  /** How long tasks are sent for (s); the run then waits for the last results. @defaultValue 600 */
  seconds: number;
  /** Seeds the fault schedule and the task arguments: the same seed, the same run. @defaultValue 1 */
  seed: number;
  /** The faults injected. @defaultValue every kind */
  faults: readonly FaultKind[];
  /** The broker: only `redis` for now (a Redis of the soak's own, started from an append-only file). */
  transport: 'redis';
  /** How the broker is laid out: one node. */
  topology: 'single';
  /** Broker restarts over the run (each a kill -9, a pause, and a restart from the AOF). @defaultValue 2 */
  restarts: number;
  /** Garbage messages written straight into the queue over the run. @defaultValue 40 */
  garbage: number;
}

/** The defaults, as the issue that asked for the soak ran it. */
export const SOAK_DEFAULTS = {
  tasks: 10_000,
  seconds: 600,
  seed: 1,
  faults: FAULT_KINDS,
  transport: 'redis',
  topology: 'single',
  restarts: 2,
  garbage: 40,
} satisfies SoakOptions;

/** Reads the options from `argv` (without node and the script). */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      tasks: { type: 'string' },
      seconds: { type: 'string' },
      seed: { type: 'string' },
      faults: { type: 'string' },
      transport: { type: 'string' },
      topology: { type: 'string' },
      restarts: { type: 'string' },
      garbage: { type: 'string' },
    },
  });
  const faults = values.faults === undefined ? SOAK_DEFAULTS.faults : parseFaults(values.faults);
  if (values.transport !== undefined && values.transport !== 'redis') {
    throw new Error(`--transport ${values.transport}: the soak runs on redis only for now.`);
  }
  if (values.topology !== undefined && values.topology !== 'single') {
    throw new Error(`--topology ${values.topology}: the soak runs on a single node only for now.`);
  }
  return {
    ...SOAK_DEFAULTS,
    tasks: count('tasks', values.tasks, SOAK_DEFAULTS.tasks),
    seconds: count('seconds', values.seconds, SOAK_DEFAULTS.seconds),
    seed: count('seed', values.seed, SOAK_DEFAULTS.seed),
    restarts: count('restarts', values.restarts, SOAK_DEFAULTS.restarts),
    garbage: count('garbage', values.garbage, SOAK_DEFAULTS.garbage),
    faults,
  };
}

function count(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} ${text}: expected a whole number >= 0.`);
  return value;
}

function parseFaults(text: string): FaultKind[] {
  if (text === '' || text === 'none') return [];
  return text.split(',').map((name) => {
    if (!(FAULT_KINDS as readonly string[]).includes(name)) {
      throw new Error(`--faults ${text}: unknown fault ${name}; the kinds are ${FAULT_KINDS.join(', ')} (or none).`);
    }
    return name as FaultKind;
  });
}
