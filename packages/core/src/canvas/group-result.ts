/**
 * GroupResult: the handle of a group's results, in member order. It is a promise of the list of
 * values and a query object (`completedCount()`, `ready()`, ...).
 */
import type { AsyncResult, GetOptions, ParentResult, ResultSource, RevokeOptions } from '../async-result';
import type { CeleriacError } from '../errors';
import { isReadyState } from '../states';

/** The results of a group's members, in order; typed by the tuple (or array) of their values. */
export class GroupResult<T extends readonly unknown[] = unknown[]> implements PromiseLike<T> {
  /** Resolves once the broker accepted every message the group started with. */
  readonly sent: Promise<void>;
  private settled: Promise<T> | undefined;

  constructor(
    private readonly source: ResultSource,
    /** The group id; member `i`'s task id is `<id>:<i>`. */
    readonly id: string,
    /** One handle per member, in order. */
    readonly results: ReadonlyArray<AsyncResult<unknown>>,
    options: { sent?: Promise<void>; parent?: ParentResult } = {},
  ) {
    this.sent = options.sent ?? Promise.resolve();
    this.sent.catch(() => undefined);
    this.parent = options.parent;
  }

  /** The step before this group in a chain, when there is one. */
  readonly parent: ParentResult | undefined;

  /** The task ids of the members, in order. */
  get ids(): string[] {
    return this.results.map((result) => result.id);
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
}
