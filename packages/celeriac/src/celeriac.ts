/**
 * `Celeriac`: the app users create. It adds to the core app the transports (`memory://`, and Redis
 * once installed) and in-process workers.
 */
import { CeleriacCore } from '@celeriac/core';
import { Worker, type WorkerOptions } from '@celeriac/worker';

/** The Celeriac app: declare tasks, send them, read results, run workers. */
export class Celeriac extends CeleriacCore {
  /**
   * Creates an in-process worker for this app (call `start()` on it). Closing the app closes it.
   * For process pools, run the `celeriac worker` command.
   */
  worker(options: WorkerOptions = {}): Worker {
    return new Worker(this, options);
  }
}
