/**
 * The app: the task registry, the connections to the broker and result backend, and the calls that
 * send tasks. `CeleriacCore` knows only the memory transport; the `celeriac` package adds Redis and
 * workers.
 */
import { randomUUID } from './internal/lazy-crypto';
import { AsyncResult, type ResultSource, type RevokeOptions } from './async-result';
import { failFlow, type FlowContext } from './canvas/flow';
import { alignGroupTtls } from './canvas/group-ttl';
import { GroupResult } from './canvas/group-result';
import { planLaunch } from './canvas/launch';
import { memberId, type CanvasNode, type Continuation, type Flow } from './canvas/nodes';
import type { BackendSettings, ResultBackend, StoreEntry } from './backend';
import type { Broker, BrokerSettings, PurgedMessage } from './broker';
import { Codec, type CustomSerializer, type JsonValue } from './codec';
import { findDecoratedMethods, type RegisteredTasks } from './decorator';
import type { Duration } from './duration';
import { CeleriacError } from './errors';
import { buildMessage } from './internal/build-message';
import { Publisher } from './internal/publisher';
import { resolveAppOptions, resultTtlMilliseconds } from './internal/resolve-options';
import { buildRevocation } from './internal/revocation';
import { MemoryBackend } from './memory/memory-backend';
import { MemoryBroker } from './memory/memory-broker';
import { decodeMessage, encodeMessage, envelopeOf, type TaskMessage } from './message';
import type { ApplyOptions, CeleriacOptions, ResolvedAppOptions, TaskOptions } from './options';
import { TaskRegistry } from './registry';
import { Signature, type SignatureData, type SignatureSender } from './signature';
import { createTaskHandle, type TaskFunction, type TaskHandle, type TaskSender } from './task';

/** How many records one store call writes when many tasks were removed at once (a purge). */
const RECORD_CHUNK = 1_000;

/** Where a message comes from, beside its call: lineage, reply channel and workflow fields. */
export interface MessageExtras {
  parentId?: string;
  rootId?: string;
  /** The channel for completion notices; defaults to this client's. */
  replyTo?: string | undefined;
  flow?: Flow;
}

/** Options of {@link CeleriacCore.launchCanvas}. */
export interface LaunchOptions extends Omit<MessageExtras, 'flow'> {
  /** What runs after the launched node (the rest of a chain, a chord body). */
  next?: Continuation;
  /** Publish as a re-send: a copy still waiting or running is not duplicated. */
  idempotent?: boolean;
}

/** Something the app closes when it closes (workers, schedulers). */
export interface Closeable {
  close(): Promise<void>;
}

/** The Celeriac app without transports beyond `memory://`; use `Celeriac` from the `celeriac` package. */
export class CeleriacCore implements TaskSender, SignatureSender, ResultSource {
  /** The options after defaults. */
  readonly options: ResolvedAppOptions;
  /** Serializes arguments and results; register custom types on it through `registerType`. */
  readonly codec = new Codec();
  /** The tasks this app registered. */
  readonly registry = new TaskRegistry();
  private clientIdValue: string | undefined;
  private brokerInstance: Broker | undefined;
  private backendInstance: ResultBackend | undefined;
  // Not `this.broker`: close() flushes pending publishes after the app is marked closed.
  private readonly publisher = new Publisher(() => this.connectBroker());
  private readonly closeables = new Set<Closeable>();
  private closing: Promise<void> | undefined;
  /** True once the workers started from this app have stopped: from then on nothing may be sent. */
  private sealed = false;

  constructor(options: CeleriacOptions = {}) {
    this.options = resolveAppOptions(options);
    for (const [what, target] of [['broker', this.options.broker], ['backend', this.options.backend]] as const) {
      if (typeof target === 'string') this.checkUrl(target, what);
    }
  }

  /** This client's id (made on first use); completion notices for tasks it sent go to this channel. */
  get clientId(): string {
    this.clientIdValue ??= randomUUID();
    return this.clientIdValue;
  }

  /** The broker, connected on first use. */
  get broker(): Broker {
    this.assertOpen();
    return this.connectBroker();
  }

  /** The result backend, connected on first use. */
  get backend(): ResultBackend {
    this.assertOpen();
    this.backendInstance ??= typeof this.options.backend === 'string' ? this.createBackend(new URL(this.options.backend), this.backendSettings()) : this.options.backend;
    return this.backendInstance;
  }

  /**
   * Registers a task and returns its typed handle.
   * @throws CeleriacError `CELERIAC_DUPLICATE_TASK` when the name is taken.
   */
  task<F extends TaskFunction>(name: string, fn: F, options: TaskOptions<Awaited<ReturnType<F>>> = {}): TaskHandle<Parameters<F>, ReturnType<F>> {
    if (typeof name !== 'string' || name.length === 0) {
      throw new CeleriacError('CELERIAC_INVALID_OPTION', 'A task needs a non-empty name, e.g. app.task("math.add", fn).');
    }
    if (typeof fn !== 'function') {
      throw new CeleriacError('CELERIAC_INVALID_OPTION', `Task "${name}" needs a function as its second argument.`);
    }
    this.registry.add({ name, fn: fn as unknown as (...args: unknown[]) => unknown, options: options as TaskOptions });
    return createTaskHandle(this, name, fn, options);
  }

  /**
   * Registers the `@task`-decorated methods of an instance and returns their typed handles.
   * @throws CeleriacError `CELERIAC_NO_TASKS` when no method is decorated.
   */
  register<T extends object>(instance: T): RegisteredTasks<T> {
    const methods = findDecoratedMethods(instance);
    const className = instance.constructor?.name ?? 'Anonymous';
    if (methods.length === 0) {
      throw new CeleriacError('CELERIAC_NO_TASKS', `${className} has no @task-decorated methods. Decorate at least one method with @task().`);
    }
    const handles: Record<string, unknown> = {};
    for (const { property, options } of methods) {
      const { name = `${className}.${property}`, ...taskOptions } = options;
      const method = (instance as Record<string, (...args: never[]) => unknown>)[property] as (...args: never[]) => unknown;
      handles[property] = this.task(name, method.bind(instance), taskOptions);
    }
    return handles as RegisteredTasks<T>;
  }

  /** Sends a task by name, e.g. from code that does not import it. */
  sendTask<R = unknown>(name: string, args: readonly unknown[] = [], options?: ApplyOptions): AsyncResult<R> {
    return this.applyTask<R>(name, args, options);
  }

  /** Sends one call; the task's registered options apply under the call's. */
  applyTask<R>(name: string, args: readonly unknown[], options: ApplyOptions | undefined): AsyncResult<R> {
    this.assertOpen();
    const message = this.buildMessage(name, args, options ?? {});
    return this.publishMessage<R>(message, options?.taskId !== undefined);
  }

  /** Publishes an already built message (workers use this for chains and callbacks). */
  publishMessage<R>(message: TaskMessage, idempotent: boolean): AsyncResult<R> {
    const sent = this.publisher.publish(envelopeOf(message, this.encode(message), idempotent)).then(() => undefined);
    // A chosen id may already be waiting from another sender, whose copy runs: wait as a bystander.
    return new AsyncResult<R>(this, message.id, { sent, taskName: message.task, sentHere: !idempotent });
  }

  /** Builds the message of a call without sending it. */
  buildMessage(name: string, args: readonly unknown[], options: ApplyOptions, extras: MessageExtras = {}): TaskMessage {
    if (!Array.isArray(args)) {
      throw new CeleriacError('CELERIAC_INVALID_OPTION', `The arguments of ${name} must be an array, e.g. applyAsync([2, 3]).`);
    }
    const replyTo = 'replyTo' in extras ? extras.replyTo : this.clientId;
    return buildMessage({ name, args, call: options, task: this.registry.get(name)?.options, app: this.options, ...extras, replyTo });
  }

  /**
   * Publishes the first tasks of a frozen workflow (see `chain`, `group`, `chord`); every message is
   * built and encoded before any is sent, so bad input sends nothing. Workers call it with `next`
   * and the finished step's lineage to start what follows a step.
   */
  launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options: LaunchOptions = {}): Promise<void> {
    this.assertOpen();
    const { next, idempotent = false, ...extras } = options;
    const aligned = alignGroupTtls(node, (step) => this.resultTtlOf(step.task, step.options.resultTtl));
    const messages = planLaunch(aligned, parentArgs, next).map(({ node: step, args, flow }) => this.buildMessage(step.task, args, step.options, { ...extras, flow }));
    const envelopes = messages.map((message) => envelopeOf(message, this.encode(message), idempotent));
    return Promise.all(envelopes.map((envelope) => this.publisher.publish(envelope))).then(() => undefined);
  }

  /** How long a task's result is kept (ms): the call's option, else the task's, else the app's. */
  resultTtlOf(task: string, call: Duration | undefined): number {
    const ttl = call ?? this.registry.get(task)?.options.resultTtl;
    return ttl === undefined ? this.options.resultTtl : resultTtlMilliseconds(ttl);
  }

  /** A handle on the results of group `id` of `size` members, from any process. */
  groupResult<T extends readonly unknown[] = unknown[]>(id: string, size: number): GroupResult<T> {
    return new GroupResult<T>(this, id, Array.from({ length: size }, (_, index) => new AsyncResult(this, memberId(id, index))));
  }

  /** Encodes a message with the app's secret and size limit. */
  encode(message: TaskMessage): string {
    return encodeMessage(this.codec, message, { secret: this.options.secret, maxBytes: this.options.maxMessageSize });
  }

  /** A handle on the result of task `id`, from any process. */
  result<R = unknown>(id: string): AsyncResult<R> {
    return new AsyncResult<R>(this, id);
  }

  /** Rebuilds a signature from its data (e.g. one stored or received as JSON). */
  signature<R = unknown>(data: SignatureData): Signature<R> {
    return new Signature<R>(this, data);
  }

  /**
   * Revokes a task: a waiting copy is removed and every worker, also ones started later, refuses to
   * run it; with `terminate`, a running copy is aborted.
   */
  async revoke(id: string, options: RevokeOptions = {}): Promise<void> {
    const { removed, body } = await this.broker.revoke(buildRevocation(id, options));
    if (removed) await this.recordRemoved([{ id, body: body ?? '' }], 'revoked');
  }

  /**
   * Removes every waiting and delayed task of a queue (running ones finish) and records each as
   * REVOKED with the reason `purged`, so that whoever awaits one hears it. Returns how many went.
   */
  async purge(queue: string = this.options.defaultQueue): Promise<number> {
    const removed = await this.broker.purge(queue);
    await this.recordRemoved(removed, 'purged');
    return removed.length;
  }

  /** The sender's notification channel named in an encoded message, if it decodes. */
  replyToOf(body: string): string | undefined {
    return this.decodeOrUndefined(body)?.replyTo;
  }

  /**
   * Decodes a message with the app's secret. Given the id of the delivery about to run, a signed
   * message must also be signed for that id and within `signatureMaxAge` of becoming due.
   * @throws CeleriacError `CELERIAC_INVALID_MESSAGE`, `CELERIAC_BAD_SIGNATURE` or `CELERIAC_SIGNATURE_EXPIRED`.
   */
  decode(body: string, deliveryId?: string): TaskMessage {
    const delivery = deliveryId === undefined ? undefined : { id: deliveryId, maxAge: this.options.signatureMaxAge };
    return decodeMessage(this.codec, body, { secret: this.options.secret, delivery });
  }

  /** The decoded message, or undefined when it does not decode (or is not signed as it must be). */
  decodeOrUndefined(body: string): TaskMessage | undefined {
    try {
      return this.decode(body);
    } catch {
      return undefined;
    }
  }

  /** Lets instances of a class travel in arguments and results (both sides must register it). */
  registerType(cls: abstract new (...args: never[]) => unknown, name?: string): void {
    this.codec.registerClass(cls, name);
  }

  /** Registers a custom serializer for a type the codec does not know (Buffer, Decimal, ...). */
  registerSerializer<T, J extends JsonValue>(name: string, serializer: CustomSerializer<T, J>): void {
    this.codec.registerCustom(serializer, name);
  }

  /** Registers something to close with the app (workers do this). */
  track(closeable: Closeable): () => void {
    this.closeables.add(closeable);
    return () => this.closeables.delete(closeable);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Flushes pending publishes, closes workers started from this app, then every connection. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  /**
   * Stores a REVOKED record for each message removed before it ran, which wakes its waiters, and
   * settles the workflow steps after it: they will not run either, so they must not stay PENDING.
   */
  private async recordRemoved(removed: readonly PurgedMessage[], reason: 'revoked' | 'purged'): Promise<void> {
    const context: FlowContext = { app: this, store: (entries) => this.backend.store(entries), ttlOf: (step) => this.resultTtlOf(step.task, step.resultTtl) };
    for (let start = 0; start < removed.length; start += RECORD_CHUNK) {
      const chunk = removed.slice(start, start + RECORD_CHUNK).map(({ id, body }) => ({ id, message: body === '' ? undefined : this.decodeOrUndefined(body) }));
      const entries = chunk.map(({ id, message }): StoreEntry => {
        const entry: StoreEntry = { record: { id, state: 'REVOKED', meta: { reason }, date: Date.now() }, ttl: message ? context.ttlOf(message) : this.options.resultTtl };
        if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
        return entry;
      });
      await this.backend.store(entries);
      const flows = chunk.flatMap(({ id, message }) => (message?.flow ? [failFlow(context, message, { state: 'REVOKED', reason: `step ${id} ${reason}` })] : []));
      await Promise.all(flows);
    }
  }

  /** Creates the broker for a URL; subclasses add schemes. */
  protected createBroker(url: URL, settings: BrokerSettings): Broker {
    if (url.protocol === 'memory:') return new MemoryBroker(settings);
    throw this.unsupported(url, 'broker');
  }

  /** Creates the result backend for a URL; subclasses add schemes. */
  protected createBackend(url: URL, _settings: BackendSettings): ResultBackend {
    if (url.protocol === 'memory:') return new MemoryBackend(this.codec);
    throw this.unsupported(url, 'backend');
  }

  /** The URL schemes this app can connect to. */
  protected supportedSchemes(): string[] {
    return ['memory:'];
  }

  /** Settings handed to brokers. */
  protected brokerSettings(): BrokerSettings {
    const { prefix, visibilityTimeout, maxDeliveries, revokeTtl, maxMessageSize } = this.options;
    return { prefix, visibilityTimeout, maxDeliveries, revokeTtl, maxMessageSize };
  }

  /** Settings handed to backends. */
  protected backendSettings(): BackendSettings {
    return { prefix: this.options.prefix, clientId: this.clientId };
  }

  private async closeAll(): Promise<void> {
    // Workers finishing their last tasks still store results and start the next workflow steps.
    await Promise.allSettled([...this.closeables].map((closeable) => closeable.close()));
    this.sealed = true;
    await this.publisher.drain();
    const closing: Array<Promise<void>> = [];
    if (this.brokerInstance) closing.push(this.brokerInstance.close());
    if (this.backendInstance && (this.backendInstance as unknown) !== this.brokerInstance) closing.push(this.backendInstance.close());
    await Promise.all(closing);
  }

  private connectBroker(): Broker {
    this.brokerInstance ??= typeof this.options.broker === 'string' ? this.createBroker(new URL(this.options.broker), this.brokerSettings()) : this.options.broker;
    return this.brokerInstance;
  }

  private checkUrl(target: string, what: 'broker' | 'backend'): void {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new CeleriacError('CELERIAC_UNSUPPORTED_URL', `The ${what} URL ${JSON.stringify(target)} is not a URL. Use e.g. 'redis://127.0.0.1:6379/0' or 'memory://'.`);
    }
    if (!this.supportedSchemes().includes(url.protocol)) throw this.unsupported(url, what);
  }

  private unsupported(url: URL, what: string): CeleriacError {
    return new CeleriacError(
      'CELERIAC_UNSUPPORTED_URL',
      `The ${what} URL scheme "${url.protocol}" is not supported here (supported: ${this.supportedSchemes().join(', ')}). Import Celeriac from the 'celeriac' package for Redis.`,
    );
  }

  private assertOpen(): void {
    if (this.sealed) throw new CeleriacError('CELERIAC_CLOSED', 'This app was closed; create a new one to send tasks.');
  }
}
