/**
 * The dashboard's one reader of the event log, and what it feeds: the task list, the charts, the
 * worker list, the metrics handler's counters (when it counts events), and every open live
 * connection (server-sent events). Events are pushed in batches,
 * 200 ms after the first of a burst, with the overview; the queue counts are also read and pushed
 * every `sampleEvery` ms (the depth chart's samples, taken from the dashboard's start). The
 * browsers never poll.
 *
 * States: idle → running (on the first request or `listen`) → closed. A failing read (Redis away)
 * is retried after a pause while running; `close` aborts the read and the timer.
 */
import {
  brokerSupports,
  type Broker,
  type CeleriacCore,
  type QueueInfo,
  type StoredEvent,
  type WorkerInfo,
} from '@celeriac/core';
import { runtimeOf } from '@celeriac/core/internal';
import type { ResolvedDashboardOptions } from '../options';
import { History } from './history';
import { payloadText } from './preview';
import { TaskIndex } from './task-index';
import { WorkerTracker, type WorkerView } from './workers';

/** What the overview shows, pushed to the browsers whenever it may have changed. */
export interface Overview {
  workers: WorkerView[];
  queues: QueueInfo[];
  history: ReturnType<History['lastHour']>;
  /** Whether the app writes events at all (the task list and charts need them). */
  eventsEnabled: boolean;
  /** Set when the last read of the queues or the event log failed. */
  error?: string;
}

/**
 * A live connection: receives named messages, `overview` (an {@link Overview}) and `events`
 * (`{ events, skipped }`: the events of the last moments, and how many more were left out).
 */
export type Subscriber = (name: 'overview' | 'events', data: unknown) => void;

/** How long events are gathered before they and the overview are pushed (events come in bursts). */
const SETTLE_MS = 200;
/** Most events in one push; past it only their number is sent (the pages reload what they show). */
const MAX_EVENTS_PUSHED = 500;
/** The pause before a failed read of the event log is tried again. */
const RETRY_MS = 2_000;

/** Reads the event log and the queues for one dashboard. */
export class LiveFeed {
  readonly tasks: TaskIndex;
  private readonly history = new History();
  private readonly workers = new WorkerTracker();
  private readonly subscribers = new Set<Subscriber>();
  private readonly stop = new AbortController();
  private state: 'idle' | 'running' | 'closed' = 'idle';
  private sampler: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private last: Overview | undefined;
  private error: string | undefined;
  private pending: StoredEvent[] = [];
  private skipped = 0;

  constructor(
    private readonly app: CeleriacCore,
    private readonly options: ResolvedDashboardOptions,
  ) {
    this.tasks = new TaskIndex(options.maxTasks, (payload) => payloadText(runtimeOf(app).codec, payload));
  }

  /** Starts reading (once). */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    this.reading = this.read();
    this.sampler = setInterval(() => void this.push(), this.options.sampleEvery);
    this.sampler.unref();
  }

  /** Adds a live connection; it gets the overview at once. Returns its removal. */
  subscribe(subscriber: Subscriber): () => void {
    this.start();
    this.subscribers.add(subscriber);
    void this.overview().then((overview) => subscriber('overview', overview));
    return () => this.subscribers.delete(subscriber);
  }

  /** The overview now: workers, queues and the last hour. */
  async overview(): Promise<Overview> {
    this.start();
    const now = Date.now();
    try {
      const [queues, live] = await Promise.all([this.app.queues.list(), workersOf(this.app.broker)]);
      this.history.sample(queues, now);
      this.last = {
        workers: this.workers.list(live, now),
        queues,
        history: this.history.lastHour(now),
        eventsEnabled: this.app.options.events.enabled,
        ...(this.error === undefined ? {} : { error: this.error }),
      };
    } catch (error) {
      this.last = { ...(this.last ?? emptyOverview(this.app)), error: (error as Error).message };
    }
    return this.last;
  }

  /** Stops reading; resolves once the read loop ended. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stop.abort();
    clearInterval(this.sampler);
    clearTimeout(this.settle);
    this.subscribers.clear();
    await this.reading;
  }

  private async read(): Promise<void> {
    let since: string | number = this.options.history;
    while (this.state === 'running') {
      try {
        for await (const event of this.app.events.stream({ since, signal: this.stop.signal })) {
          since = event.eventId;
          this.error = undefined;
          this.fold(event);
        }
      } catch (error) {
        // Closed (or its app closed under it): nothing more to read.
        if (this.state !== 'running' || this.app.closed) return;
        this.error = `Reading the event log failed: ${(error as Error).message}`;
        await pause(RETRY_MS, this.stop.signal);
      }
    }
  }

  private fold(event: StoredEvent): void {
    // The metrics count from the same reader: no second read of the log, whatever the live connections.
    this.options.metrics?.countEvent?.(event);
    this.tasks.add(event);
    this.history.add(event);
    this.workers.add(event);
    if (this.subscribers.size === 0) return;
    if (this.pending.length < MAX_EVENTS_PUSHED) this.pending.push(event);
    else this.skipped += 1;
    this.settle ??= setTimeout(() => {
      this.settle = undefined;
      this.flush();
      void this.push();
    }, SETTLE_MS);
  }

  /** Sends the events gathered since the last flush, as one message (at most MAX_EVENTS_PUSHED of them). */
  private flush(): void {
    const batch = { events: this.pending, skipped: this.skipped };
    this.pending = [];
    this.skipped = 0;
    for (const subscriber of this.subscribers) subscriber('events', batch);
  }

  /**
   * Reads the overview (which samples the queue depth for the chart, so it runs even when nobody
   * watches) and sends it to every live connection.
   */
  private async push(): Promise<void> {
    if (this.state !== 'running' || this.app.closed) return;
    const overview = await this.overview();
    for (const subscriber of this.subscribers) subscriber('overview', overview);
  }
}

function emptyOverview(app: CeleriacCore): Overview {
  return { workers: [], queues: [], history: [], eventsEnabled: app.options.events.enabled };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The live workers, from a broker that keeps worker records (none from one that does not). */
function workersOf(broker: Broker): Promise<WorkerInfo[]> {
  return brokerSupports(broker, 'workerRecords') ? broker.listWorkers() : Promise.resolve([]);
}
