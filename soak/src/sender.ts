/**
 * The soak's sender: sends the run's tasks evenly over its span (and a probe to each worker's own
 * queue every few seconds), retries a send the broker refused (as a caller would), and awaits every
 * accepted task's result, checking its value and timing it. One task in five has a countdown of up
 * to 3 s, so idle workers' wake-ups at due times also meet broker outages.
 */
import { randomUUID } from 'node:crypto';
import type { AsyncResult, Celeriac } from 'celeriac';
import { FLEET, probeQueue } from './fleet';
import { seededRandom } from './schedule';

/** One task the broker accepted, and how it ended for its caller. */
export interface SentTask {
  id: string;
  expected: number;
  /** When the caller first asked to send it (epoch ms). */
  askedAt: number;
  /** Sends the broker refused before one was accepted. */
  refusedSends: number;
  outcome?: { kind: 'value'; value: unknown; at: number } | { kind: 'error'; error: string; at: number };
  /** For a probe: the worker whose queue it went to. */
  probeOf?: string;
}

/** How often each worker gets a probe (ms). */
const PROBE_EVERY_MS = 5_000;

/** Sends and awaits the run's tasks. */
export class Sender {
  readonly sent: SentTask[] = [];
  private readonly waits: Array<Promise<void>> = [];
  private readonly random: () => number;
  private stopped = false;

  constructor(
    private readonly app: Celeriac,
    seed: number,
  ) {
    this.random = seededRandom(seed ^ 0x5eed);
  }

  /** Sends `tasks` tasks evenly over `spanMs`, and a probe to each worker every few seconds meanwhile. */
  async run(tasks: number, spanMs: number): Promise<void> {
    const began = Date.now();
    let nextProbe = began;
    for (let i = 0; i < tasks && !this.stopped; i += 1) {
      const due = began + (spanMs * i) / tasks;
      if (due > Date.now()) await new Promise((done) => setTimeout(done, due - Date.now()));
      const a = Math.floor(this.random() * 1_000);
      const b = Math.floor(this.random() * 1_000);
      const pauseMs = Math.floor(this.random() * 20);
      const countdown = this.random() < 0.2 ? Math.floor(this.random() * 3_000) : 0;
      void this.send([a, b, pauseMs], a + b, undefined, countdown);
      if (Date.now() >= nextProbe) {
        nextProbe += PROBE_EVERY_MS;
        for (const { name } of FLEET) void this.send([0, 1, 0], 1, name);
      }
    }
  }

  /** Resolves once every accepted task's result came, or `ms` passed. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.waits), new Promise((done) => (timer = setTimeout(done, ms)))]);
    clearTimeout(timer);
  }

  /** Stops sending (the run is cut short). */
  stop(): void {
    this.stopped = true;
  }

  private async send(args: [number, number, number], expected: number, probeOf?: string, countdown = 0): Promise<void> {
    const askedAt = Date.now();
    let refusedSends = 0;
    for (;;) {
      const taskId = randomUUID();
      const handle: AsyncResult<number> = this.app.sendTask<number>('soak.add', [...args, taskId], {
        queue: probeOf === undefined ? 'default' : probeQueue(probeOf),
        taskId,
        ...(countdown > 0 ? { countdown } : {}),
      });
      try {
        await handle.sent;
      } catch {
        // Refused (the broker is down): nothing was accepted; try again shortly, as a caller would.
        refusedSends += 1;
        await new Promise((done) => setTimeout(done, 500));
        continue;
      }
      const task: SentTask = { id: handle.id, expected, askedAt, refusedSends, ...(probeOf ? { probeOf } : {}) };
      this.sent.push(task);
      this.waits.push(
        handle.get().then(
          (value) => void (task.outcome = { kind: 'value', value, at: Date.now() }),
          (error: unknown) => void (task.outcome = { kind: 'error', error: String(error), at: Date.now() }),
        ),
      );
      return;
    }
  }
}
