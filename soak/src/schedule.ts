/**
 * The fault schedule of a soak run, drawn from its seed: the same seed gives the same faults at the
 * same moments against the same targets, so a failing run can be run again.
 */
import type { FaultKind, SoakOptions } from './options';

/** One fault to inject. */
export interface Fault {
  /** When, in ms after the run began. */
  at: number;
  kind: FaultKind;
  /** Picks the target (a worker, a child, a client) among those there at that moment: [0, 1). */
  pick: number;
  /** For a broker restart: how long the broker stays down (ms). */
  downMs: number;
}

/** How often each repeated fault comes, on average (ms). */
const EVERY: Partial<Record<FaultKind, number>> = {
  'client-kill': 20_000,
  'worker-kill': 50_000,
  'child-kill': 35_000,
};

/** A small seeded generator (mulberry32): numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The faults of a run, in time order. */
export function faultSchedule(options: SoakOptions): Fault[] {
  const random = seededRandom(options.seed);
  const span = options.seconds * 1_000;
  const faults: Fault[] = [];
  const add = (kind: FaultKind, at: number, downMs = 0) => faults.push({ at, kind, pick: random(), downMs });
  for (const kind of options.faults) {
    const every = EVERY[kind];
    if (every !== undefined) {
      // Evenly spaced, each moved by up to a quarter of the spacing either way.
      for (let at = every; at < span; at += every) add(kind, Math.round(at + (random() - 0.5) * every * 0.5));
    }
  }
  if (options.faults.includes('broker-restart')) {
    // In the middle 70 % of the run, in slices of their own so that restarts never overlap.
    const slice = (span * 0.7) / Math.max(1, options.restarts);
    for (let i = 0; i < options.restarts; i += 1) {
      add(
        'broker-restart',
        Math.round(span * 0.15 + slice * (i + 0.2 + random() * 0.6)),
        1_000 + Math.round(random() * 4_000),
      );
    }
  }
  if (options.faults.includes('garbage')) {
    for (let i = 0; i < options.garbage; i += 1) add('garbage', Math.round(random() * span));
  }
  return faults.sort((a, b) => a.at - b.at);
}
