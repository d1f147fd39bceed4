/** The workers' records on the memory broker: each kept until its heartbeat's TTL runs out. */
import type { WorkerInfo } from '../broker';

/** The records of the workers of one memory broker, by hostname. */
export class MemoryWorkerRegistry {
  private readonly workers = new Map<string, { info: WorkerInfo; until: number }>();

  /** Writes a worker's record, kept `ttl` ms unless written again. */
  heartbeat(info: WorkerInfo, ttl: number): void {
    this.workers.set(info.hostname, { info, until: Date.now() + ttl });
  }

  /** Deletes a worker's record (it stopped). */
  forget(hostname: string): void {
    this.workers.delete(hostname);
  }

  /** The records of the workers alive now. */
  list(): WorkerInfo[] {
    const now = Date.now();
    return [...this.workers.values()].filter((worker) => worker.until > now).map((worker) => worker.info);
  }
}
