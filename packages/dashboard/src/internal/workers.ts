/**
 * The workers the overview lists: those whose heartbeat record is live in the broker (online),
 * with what their events add (RSS, load), and those seen in the events that stopped (offline).
 */
import type { StoredEvent, WorkerInfo } from '@celeriac/core';

/** One worker as the dashboard shows it. */
export interface WorkerView {
  hostname: string;
  pid: number;
  status: 'online' | 'offline';
  pool?: string;
  /** The pool's size now. */
  concurrency?: number;
  /** Its bounds, when the worker autoscales (from its heartbeat record). */
  autoscale?: { readonly min: number; readonly max: number };
  queues?: readonly string[];
  started?: number;
  /** Epoch ms of its last heartbeat or event. */
  heartbeat: number;
  processed?: number;
  /** Tasks held: running or reserved for a slot. */
  active?: number;
  /** Of those, the tasks running now. */
  busy?: number;
  /** Resident set size in bytes, from its last heartbeat event. */
  rss?: number;
}

/** How long an offline worker stays listed. */
const OFFLINE_KEPT_MS = 60 * 60_000;

/** Worker state from events, merged with the broker's live heartbeat records. */
export class WorkerTracker {
  private readonly seen = new Map<string, WorkerView>();

  /** Folds a worker event in; task events are ignored. */
  add(event: StoredEvent): void {
    if ('taskId' in event) return;
    const view: WorkerView = this.seen.get(event.hostname) ?? {
      hostname: event.hostname,
      pid: event.pid,
      status: 'online',
      heartbeat: 0,
    };
    if (event.timestamp < view.heartbeat) return;
    view.pid = event.pid;
    view.heartbeat = event.timestamp;
    switch (event.type) {
      case 'worker-online':
        Object.assign(view, { status: 'online', pool: event.pool, concurrency: event.concurrency });
        view.queues = event.queues;
        view.started = event.timestamp;
        break;
      case 'worker-heartbeat':
        Object.assign(view, { status: 'online', active: event.active, processed: event.processed, rss: event.rss });
        if (event.busy !== undefined) view.busy = event.busy;
        break;
      case 'worker-offline':
        Object.assign(view, { status: 'offline', processed: event.processed, active: 0, busy: 0 });
        break;
    }
    this.seen.set(event.hostname, view);
  }

  /** Every worker: the live ones (from `live`, the broker's records) first, then the offline, by name. */
  list(live: readonly WorkerInfo[], now: number): WorkerView[] {
    const online = new Set(live.map((info) => info.hostname));
    const views: WorkerView[] = live.map((info) => ({
      ...this.seen.get(info.hostname),
      ...info,
      status: 'online' as const,
    }));
    for (const view of this.seen.values()) {
      if (online.has(view.hostname)) continue;
      if (now - view.heartbeat > OFFLINE_KEPT_MS) this.seen.delete(view.hostname);
      else views.push({ ...view, status: 'offline' });
    }
    return views.sort((a, b) => a.status.localeCompare(b.status) || a.hostname.localeCompare(b.hostname));
  }
}
