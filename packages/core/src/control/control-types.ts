/**
 * The control channel's messages: a request broadcast to every live worker (or the ones it names),
 * and the replies each sends back. Brokers carry them; `app.control` sends them; workers answer.
 */

/** What a control request asks a worker. */
export type ControlCommand =
  | 'ping'
  | 'active'
  | 'reserved'
  | 'scheduled'
  | 'registered'
  | 'stats'
  | 'shutdown'
  | 'pool-grow'
  | 'pool-shrink'
  | 'add-consumer'
  | 'cancel-consumer'
  | 'enable-events'
  | 'disable-events';

/** A request broadcast on the control channel. */
export interface ControlRequest {
  /** Unique per request: replies are collected under it. */
  readonly id: string;
  readonly command: ControlCommand;
  /** The command's argument: a count for pool-grow/shrink, a queue name for the consumers. */
  readonly argument?: string | number;
  /** Hostnames that should answer; absent: every worker. */
  readonly destination?: readonly string[];
}

/** One worker's answer. */
export interface ControlReply {
  readonly hostname: string;
  /** True when the worker did what was asked; false with `error` when it could not. */
  readonly ok: boolean;
  /** What the command returns (see `app.control`). */
  readonly value?: unknown;
  readonly error?: string;
}

/** How long a broadcast waits for replies. */
export interface BroadcastOptions {
  /** Milliseconds to wait for replies. */
  readonly timeout: number;
  /** Stop waiting once this many replies arrived (e.g. the number of named destinations). */
  readonly limit?: number;
}

/** Answers one request; what it returns (or throws) is sent back as the reply. */
export type ControlHandler = (request: ControlRequest) => Promise<ControlReply | undefined>;

/**
 * The control seam of a broker: broadcasting requests to live workers and collecting their replies,
 * and pausing queues. Both the memory and the Redis broker implement it.
 */
export interface ControlTransport {
  /** Sends `request` to every listening worker and resolves with the replies that came within the timeout. */
  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]>;
  /**
   * Calls `handler` for every request from now on; a reply it returns goes back to the sender. Returns an unsubscribe
   * function.
   */
  onControl(handler: ControlHandler): Promise<() => Promise<void>>;
  /** Stops workers reserving from `queue` until `resumeQueue`; publishing still works. Persistent. */
  pauseQueue(queue: string): Promise<void>;
  /** Lets workers reserve from `queue` again and wakes those waiting on it. */
  resumeQueue(queue: string): Promise<void>;
  /** The paused queues among `queues`. */
  pausedQueues(queues: readonly string[]): Promise<string[]>;
  /** The names of every queue ever published to. */
  listQueues(): Promise<string[]>;
}
