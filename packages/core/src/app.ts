/**
 * The app users create: declare tasks, send them, read results. `CeleriacCore` knows only the
 * memory transport; `Celeriac` in the `celeriac` package adds Redis, workers and periodic tasks.
 * What workers and Beat need (encoding, decoding, the registry) lives in its runtime, reached through
 * `runtimeOf(app)` from `@celeriac/core/internal`.
 */
import { AsyncResult, type RevokeOptions } from './async-result';
import type { BackendSettings, ResultBackend } from './backend';
import type { Broker, BrokerSettings } from './broker';
import type { GroupResult } from './canvas/group-result';
import type { Codec, CustomSerializer, JsonValue } from './codec';
import { Control } from './control/control-api';
import { Queues } from './control/queues-api';
import type { MethodKeys, RegisteredTasks } from './decorator';
import type { ErrorClass } from './error-types';
import { CeleriacError } from './errors';
import { AppEvents } from './events/app-events';
import { FailedTasks } from './failed/failed-tasks';
import { registerInstance } from './internal/register-instance';
import { resolveAppOptions } from './internal/resolve-options';
import { AppRuntime, unsupportedUrl } from './internal/runtime';
import type { TransportClient } from './transport-client';
import { attachRuntime } from './internal/runtime-of';
import { MemoryBackend } from './memory/memory-backend';
import { MemoryBroker } from './memory/memory-broker';
import type { ApplyOptions, CeleriacOptions, ResolvedAppOptions, TaskOptions } from './options';
import { Signature, type SignatureData } from './signature';
import type { CrossingCheck } from './crossable';
import { createTaskHandle, type TaskFunction, type TaskHandle } from './task';
import { checkFlowOptions } from './flow/resolve-limits';
import type { BackendCapabilities, BrokerCapabilities } from './capabilities';
import { MEMORY_BACKEND_CAPABILITIES, MEMORY_BROKER_CAPABILITIES } from './memory/memory-capabilities';
import { checkAppSupport, checkTaskSupport } from './internal/transport-support';

/** The Celeriac app without transports beyond `memory://`; use `Celeriac` from the `celeriac` package. */
export class CeleriacCore {
  readonly #runtime: AppRuntime;
  #control: Control | undefined;
  #queues: Queues | undefined;
  #events: AppEvents | undefined;
  #failed: FailedTasks | undefined;

  constructor(options: CeleriacOptions = {}) {
    this.#runtime = new AppRuntime(resolveAppOptions(options), {
      schemes: () => this.supportedSchemes(),
      isClient: (target): target is TransportClient => this.isTransportClient(target),
      createBroker: (target, settings) => this.createBroker(target, settings),
      createBackend: (target, settings, codec) => this.createBackend(target, settings, codec),
      brokerCapabilities: (target) => this.brokerCapabilities(target),
      backendCapabilities: (target) => this.backendCapabilities(target),
      known: () => this.knownCapabilities(),
    });
    attachRuntime(this, this.#runtime);
    checkAppSupport(this.#runtime.support, options);
  }

  /** What the app's broker and backend can do (see docs/architecture.md), known without connecting. */
  get capabilities(): { readonly broker: BrokerCapabilities; readonly backend: BackendCapabilities } {
    const { broker, backend } = this.#runtime.support;
    return { broker, backend };
  }

  /** The options after defaults. */
  get options(): ResolvedAppOptions {
    return this.#runtime.options;
  }

  /** This client's id (made on first use); completion notices for tasks it sent go to this channel. */
  get clientId(): string {
    return this.#runtime.clientId;
  }

  /** The broker, connected on first use: queue statistics, dead letters, workers (see docs/redis.md). */
  get broker(): Broker {
    return this.#runtime.broker;
  }

  /** The result backend, connected on first use: records and change notices (see docs/results.md). */
  get backend(): ResultBackend {
    return this.#runtime.backend;
  }

  /** Asks live workers what they hold and steers them: `inspect`, `ping`, `shutdown`, pool and consumer changes. */
  get control(): Control {
    this.#control ??= new Control(
      () => this.#runtime.broker,
      () => this.#runtime.support,
    );
    return this.#control;
  }

  /** The app's queues: counts, pause, resume, purge. */
  get queues(): Queues {
    this.#queues ??= new Queues(
      () => this.#runtime.broker,
      (queue) => this.purge(queue),
      () => this.#runtime.support,
    );
    return this.#queues;
  }

  /** The event log: `stream()` tails it, `recent()` reads back (see docs/operations.md). */
  get events(): AppEvents {
    this.#events ??= new AppEvents(() => this.#runtime.backend);
    return this.#events;
  }

  /** The failed-task registry: list, show, retry and discard tasks that failed for good. */
  get failed(): FailedTasks {
    const runtime = this.#runtime;
    this.#failed ??= new FailedTasks(() => ({
      broker: runtime.broker,
      backend: runtime.backend,
      decode: (body) => runtime.decode(body),
      resend: (message) => runtime.publishMessage(message, true).sent,
    }));
    return this.#failed;
  }

  /**
   * Registers a task and returns its typed handle.
   * @throws CeleriacError `CELERIAC_DUPLICATE_TASK` when the name is taken.
   */
  task<F extends TaskFunction>(
    name: string,
    fn: F & CrossingCheck<F>,
    options: TaskOptions<Awaited<ReturnType<F>>> = {},
  ): TaskHandle<Parameters<F>, ReturnType<F>> {
    if (typeof name !== 'string' || name.length === 0) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'A task needs a non-empty name, e.g. app.task("math.add", fn).',
      );
    }
    if (typeof fn !== 'function') {
      throw new CeleriacError('CELERIAC_INVALID_OPTION', `Task "${name}" needs a function as its second argument.`);
    }
    checkFlowOptions(name, options);
    checkTaskSupport(this.#runtime.support, name, options);
    this.#runtime.registry.add({
      name,
      fn: fn as unknown as (...args: unknown[]) => unknown,
      options: options as TaskOptions,
    });
    return createTaskHandle(this.#runtime, name, fn, options);
  }

  /**
   * Registers the `@task`-decorated methods of an instance and returns their typed handles. Name the
   * task methods (`app.register(mailer, ['send'])`) for handles typed for exactly those; without the
   * list every public method has a handle in the type, and reading one that is not a task throws.
   * @throws CeleriacError `CELERIAC_NO_TASKS` when no method is decorated, `CELERIAC_NOT_A_TASK` when
   * the list names a method that is not, `CELERIAC_DUPLICATE_TASK` when a name is taken.
   */
  register<T extends object>(instance: T): RegisteredTasks<T>;
  register<T extends object, const K extends MethodKeys<T>>(instance: T, tasks: readonly K[]): RegisteredTasks<T, K>;
  register(instance: object, tasks?: readonly string[]): Record<string, unknown> {
    return registerInstance(instance, tasks, (name, fn, options) => this.task(name, fn, options));
  }

  /** Sends a task by name, e.g. from code that does not import it. */
  sendTask<R = unknown>(name: string, args: readonly unknown[] = [], options?: ApplyOptions): AsyncResult<R> {
    return this.#runtime.sendTask<R>(name, args, options);
  }

  /** A handle on the result of task `id`, from any process. */
  result<R = unknown>(id: string): AsyncResult<R> {
    return this.#runtime.result<R>(id);
  }

  /** A handle on the results of group `id` of `size` members, from any process. */
  groupResult<T extends readonly unknown[] = unknown[]>(id: string, size: number): GroupResult<T> {
    return this.#runtime.groupResult<T>(id, size);
  }

  /** Rebuilds a signature from its data (e.g. one stored or received as JSON). */
  signature<R = unknown>(data: SignatureData): Signature<R> {
    return new Signature<R>(this.#runtime, data);
  }

  /**
   * Revokes a task: a waiting copy is removed and every worker, also ones started later, refuses to
   * run it; with `terminate`, a running copy is aborted.
   */
  revoke(id: string, options: RevokeOptions = {}): Promise<void> {
    return this.#runtime.revoke(id, options);
  }

  /**
   * Removes every waiting and delayed task of a queue (running ones finish) and records each as
   * REVOKED with the reason `purged`, so that whoever awaits one hears it. Returns how many went.
   */
  purge(queue: string = this.options.defaultQueue): Promise<number> {
    return this.#runtime.purge(queue);
  }

  /** Lets instances of a class travel in arguments and results (both sides must register it). */
  registerType(cls: abstract new (...args: never[]) => unknown, name?: string): void {
    this.#runtime.codec.registerClass(cls, name);
  }

  /**
   * Lets errors of a class reach the caller as themselves: a task that throws one fails with a
   * `TaskFailedError` whose `cause` is an instance of the class with the remote message, stack and
   * own fields (carried by the codec). Both the worker's app and the caller's must register it.
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a class that is not an Error, or a name taken.
   */
  registerError(cls: ErrorClass, name?: string): void {
    this.#runtime.codec.errorTypes.register(cls, name);
  }

  /** Registers a custom serializer for a type the codec does not know (Buffer, Decimal, ...). */
  registerSerializer<T, J extends JsonValue>(name: string, serializer: CustomSerializer<T, J>): void {
    this.#runtime.codec.registerCustom(serializer, name);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#runtime.closed;
  }

  /** Flushes pending publishes, closes workers started from this app, then every connection. */
  close(): Promise<void> {
    return this.#runtime.close();
  }

  /** Creates the broker for a URL (or a client object); subclasses add schemes and clients. */
  protected createBroker(target: URL | TransportClient, settings: BrokerSettings): Broker {
    if (target instanceof URL && target.protocol === 'memory:') return new MemoryBroker(settings);
    throw unsupportedTarget(target, 'broker', this.supportedSchemes());
  }

  /** Creates the result backend for a URL (or a client object); subclasses add schemes and clients. */
  protected createBackend(target: URL | TransportClient, settings: BackendSettings, codec: Codec): ResultBackend {
    if (target instanceof URL && target.protocol === 'memory:')
      return new MemoryBackend(codec, settings.eventsMaxLength);
    throw unsupportedTarget(target, 'backend', this.supportedSchemes());
  }

  /**
   * What the broker {@link CeleriacCore.createBroker} makes for `target` can do, known without
   * connecting; subclasses answer for the schemes they add. Called while the app is constructed.
   */
  protected brokerCapabilities(target: URL | TransportClient): BrokerCapabilities {
    if (target instanceof URL && target.protocol === 'memory:') return MEMORY_BROKER_CAPABILITIES;
    throw unsupportedTarget(target, 'broker', this.supportedSchemes());
  }

  /** What the backend {@link CeleriacCore.createBackend} makes for `target` can do. */
  protected backendCapabilities(target: URL | TransportClient): BackendCapabilities {
    if (target instanceof URL && target.protocol === 'memory:') return MEMORY_BACKEND_CAPABILITIES;
    throw unsupportedTarget(target, 'backend', this.supportedSchemes());
  }

  /** Every broker and backend this app can make, for errors naming the transports that have a feature. */
  protected knownCapabilities(): { brokers: BrokerCapabilities[]; backends: BackendCapabilities[] } {
    return { brokers: [MEMORY_BROKER_CAPABILITIES], backends: [MEMORY_BACKEND_CAPABILITIES] };
  }

  /**
   * True for a client object that {@link CeleriacCore.createBroker} connects through, given as the
   * broker or backend in place of a URL. Core knows none; `Celeriac` recognizes ioredis clients.
   */
  protected isTransportClient(_target: object): boolean {
    return false;
  }

  /** The URL schemes this app can connect to. */
  protected supportedSchemes(): string[] {
    return ['memory:'];
  }
}

/** The error for a URL whose scheme no transport knows, or for a client object no transport takes. */
function unsupportedTarget(target: URL | TransportClient, what: string, schemes: readonly string[]): CeleriacError {
  if (target instanceof URL) return unsupportedUrl(target, what, schemes);
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `The ${what} is a client object this app cannot use. Give a URL (${schemes.join(', ')}) or a ${what} object; ` +
      `import Celeriac from the 'celeriac' package to pass an ioredis client.`,
  );
}
