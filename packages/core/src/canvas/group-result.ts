/**
 * GroupResult: the handle of a group's results, in member order. It is a promise of the list of
 * values and a query object (`completedCount()`, `ready()`, ...). A group this client sent keeps no
 * object per member until asked for one, and is awaited as one wait (see `ResultBackend.waitForMany`).
 */
import type { AsyncResult, GetOptions, ParentResult, ResultSource, RevokeOptions } from '../async-result';
import type { ResultBackend, TaskRecord } from '../backend';
import { backendSupports } from '../supports';
import { toMilliseconds } from '../duration';
import { CeleriacError, TimeoutError } from '../errors';
import { setLongTimeout } from '../internal/long-timeout';
import { outcomeOf } from '../record-outcome';
import { isReadyState } from '../states';
import { memberId } from './nodes';
import { whileKeptAlive } from '../internal/keep-alive';

/** Member handles made on first use: a group of 100,000 holds no handle until one is asked for. */
export interface MemberHandles {
  /** How many members. */
  readonly size: number;
  /** Makes member `index`'s handle. */
  handle(index: number): AsyncResult<unknown>;
  /** The task name of member `index`'s result, when known. */
  taskName(index: number): string | undefined;
}

/** The results of a group's members, in order; typed by the tuple (or array) of their values. */
export class GroupResult<T extends readonly unknown[] = unknown[]> implements PromiseLike<T> {
  /** Resolves once the broker accepted every message the group started with. */
  readonly sent: Promise<void>;
  private settled: Promise<T> | undefined;
  private handles: ReadonlyArray<AsyncResult<unknown>> | undefined;
  private readonly members: MemberHandles | undefined;
  /** This client sent the members (their notices come here), at this time (epoch ms). */
  private readonly sentHere: boolean;
  private readonly sentAt = Date.now();

  constructor(
    private readonly source: ResultSource,
    /** The group id; member `i`'s task id is `<id>:<i>`. */
    readonly id: string,
    /** One handle per member, in order, or a maker of them. */
    results: ReadonlyArray<AsyncResult<unknown>> | MemberHandles,
    options: { sent?: Promise<void>; parent?: ParentResult; sentHere?: boolean } = {},
  ) {
    this.sent = options.sent ?? Promise.resolve();
    this.sent.catch(() => undefined);
    this.parent = options.parent;
    this.sentHere = options.sentHere ?? false;
    if (isMemberHandles(results)) this.members = results;
    else this.handles = results;
  }

  /** One handle per member, in order (made on first use). */
  get results(): ReadonlyArray<AsyncResult<unknown>> {
    const members = this.members as MemberHandles;
    this.handles ??= Array.from({ length: members.size }, (_, index) => members.handle(index));
    return this.handles;
  }

  /** How many members the group has. */
  get size(): number {
    return this.members?.size ?? this.results.length;
  }

  /** The step before this group in a chain, when there is one. */
  readonly parent: ParentResult | undefined;

  /** The task ids of the members, in order. */
  get ids(): string[] {
    if (this.handles) return this.handles.map((result) => result.id);
    return Array.from({ length: this.size }, (_, index) => memberId(this.id, index));
  }

  /** Waits for every member's value. */
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.settled ??= this.get();
    return this.settled.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`. */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  /**
   * Waits for all members and returns their values in order.
   * @throws the first failure (TaskFailedError, TaskRevokedError) unless `propagate: false`, in which
   * case failures take their member's place in the list; TimeoutError once `timeout` passed.
   */
  get(options?: GetOptions & { propagate?: true }): Promise<T>;
  get(options: GetOptions & { propagate: false }): Promise<Array<T[number] | CeleriacError>>;
  async get(options: GetOptions = {}): Promise<unknown> {
    const { backend } = this.source;
    if (this.sentHere && backendSupports(backend, 'waitForMany'))
      return whileKeptAlive(() => this.getTogether(options, backend.waitForMany.bind(backend)));
    // Every member waits from now, so one timeout bounds the whole group.
    return Promise.all(this.results.map((result) => result.get(options as GetOptions & { propagate: false })));
  }

  /** How many members succeeded so far (as Celery counts it: "completed" means successful). */
  async completedCount(): Promise<number> {
    return (await this.records()).filter((record) => record?.state === 'SUCCESS').length;
  }

  /** True once every member is SUCCESS, FAILURE or REVOKED. */
  async ready(): Promise<boolean> {
    return (await this.records()).every((record) => record !== undefined && isReadyState(record.state));
  }

  /** True once every member succeeded. */
  async successful(): Promise<boolean> {
    return (await this.records()).every((record) => record?.state === 'SUCCESS');
  }

  /** True when any member failed. */
  async failed(): Promise<boolean> {
    return (await this.records()).some((record) => record?.state === 'FAILURE');
  }

  /** Revokes every member. */
  async revoke(options?: RevokeOptions): Promise<void> {
    await Promise.all(this.results.map((result) => result.revoke(options)));
  }

  /** Deletes the stored results of every member. */
  forget(): Promise<void> {
    return this.source.backend.forget(this.ids);
  }

  private records() {
    return this.source.backend.getMany(this.ids);
  }

  /** Waits for every member as one wait; with `propagate`, the first failure to arrive ends it. */
  private async getTogether(
    options: GetOptions,
    waitForMany: NonNullable<ResultBackend['waitForMany']>,
  ): Promise<unknown[]> {
    const propagate = options.propagate !== false;
    const ids = this.ids;
    const controller = options.timeout === undefined ? undefined : new AbortController();
    const ms = options.timeout === undefined ? 0 : toMilliseconds(options.timeout, 'timeout');
    const timer = controller
      ? setLongTimeout(() => controller.abort(new TimeoutError(`Group ${this.id} did not finish within ${ms} ms.`)), ms)
      : undefined;
    let records: Array<TaskRecord | undefined>;
    try {
      records = await waitForMany(ids, controller?.signal, {
        sentHere: true,
        sentAt: this.sentAt,
        until: this.sent,
        ...(propagate ? { stopOn: (record: TaskRecord) => record.state !== 'SUCCESS' } : {}),
      });
    } catch (error) {
      await this.sent; // a publish failure explains the failed wait best
      throw error;
    } finally {
      timer?.clear();
    }
    const values = new Array<unknown>(ids.length);
    for (let index = 0; index < ids.length; index += 1) {
      const record = records[index];
      if (record === undefined) continue; // a failure ended the wait before this member finished
      const outcome = outcomeOf(record, ids[index] as string, this.taskNameOf(index), this.source.codec);
      if (propagate && outcome instanceof CeleriacError) throw outcome;
      values[index] = outcome;
    }
    return values;
  }

  private taskNameOf(index: number): string | undefined {
    return this.handles ? this.handles[index]?.taskName : this.members?.taskName(index);
  }
}

function isMemberHandles(results: ReadonlyArray<AsyncResult<unknown>> | MemberHandles): results is MemberHandles {
  return !Array.isArray(results);
}
