/**
 * What a Celery-speaking broker keeps that Celery has no Redis place for: revocations, worker
 * heartbeats and control requests among Celeriac workers, under the app's own prefix, through an
 * inner {@link RedisBroker}. Python workers neither see nor send them.
 */
import {
  CeleriacError,
  type BroadcastOptions,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
  type Revocation,
  type WorkerInfo,
} from '@celeriac/core';
import type { RedisBroker } from '../redis-broker';

function pauseUnsupported(queue: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_STATE',
    `Queue ${queue} cannot be paused with protocol 'celery': Python workers would go on taking from it. Stop ` +
      `consuming it instead (celery control cancel_consumer, or restart the workers without it).`,
  );
}

/** Celeriac's own channels, kept beside the Celery queues. */
export abstract class CeleriacChannels {
  constructor(protected readonly inner: RedisBroker) {}

  revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    return this.inner.revoke(revocation);
  }

  listRevoked(): Promise<Revocation[]> {
    return this.inner.listRevoked();
  }

  onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    return this.inner.onRevoke(listener);
  }

  heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    return this.inner.heartbeat(info, ttl);
  }

  forgetWorker(hostname: string): Promise<void> {
    return this.inner.forgetWorker(hostname);
  }

  listWorkers(): Promise<WorkerInfo[]> {
    return this.inner.listWorkers();
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return this.inner.broadcast(request, options);
  }

  onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    return this.inner.onControl(handler);
  }

  /** Celery's Redis transport has no paused state that Python workers would honour. */
  pauseQueue(queue: string): Promise<void> {
    return Promise.reject(pauseUnsupported(queue));
  }

  resumeQueue(queue: string): Promise<void> {
    return Promise.reject(pauseUnsupported(queue));
  }

  async pausedQueues(): Promise<string[]> {
    return [];
  }

  listQueues(): Promise<string[]> {
    return this.inner.listQueues();
  }
}
