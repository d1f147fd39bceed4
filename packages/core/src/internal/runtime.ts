/**
 * The app's runtime: its options, task registry, codec, connections and the calls that build,
 * encode, publish and decode messages. Workers and Beat work with it (through `runtimeOf(app)`);
 * users work with the app class, which keeps it out of its public type.
 */
import { adoptDuplicate, AsyncResult, type ResultSource, type RevokeOptions } from '../async-result';
import type { BackendSettings, ResultBackend, StoreEntry } from '../backend';
import type { Broker, BrokerSettings, PublishOutcome, PurgedMessage } from '../broker';
import { failWorkflow, type WorkflowContext } from '../canvas/workflow';
import { GroupResult } from '../canvas/group-result';
import { alignGroupTtls } from '../canvas/group-ttl';
import { forEachLaunch } from '../canvas/launch';
import { memberId, type CanvasNode } from '../canvas/nodes';
import { Codec } from '../codec';
import type { Duration } from '../duration';
import { CeleriacError } from '../errors';
import type { CeleriacEvent } from '../events/event-types';
import { eventPayload } from '../events/payload';
import { decodeMessage, encodeMessage, envelopeOf, type Envelope, type TaskMessage } from '../message';
import type { ApplyOptions, ResolvedAppOptions } from '../options';
import { TaskRegistry } from '../registry';
import type { SignatureSender } from '../signature';
import type { TaskSender } from '../task';
import type { TransportClient } from '../transport-client';
import { buildMessage } from './build-message';
import { settleDebounce } from './debounce';
import type { Closeable, LaunchOptions, MessageExtras } from './launch-options';
import type { Span } from '@opentelemetry/api';
import { endWhenSettled, failSpan, startSendSpan, traceRemoved } from '../tracing/spans';
import { Publisher } from './publisher';
import { backendSupports, brokerSupports } from '../supports';
import type { TransactionClient } from '../transaction-client';
import {
  resolveSupport,
  unsupportedByTransport,
  type CapabilitySource,
  type TransportSupport,
} from './transport-support';
import { resultTtlMilliseconds } from './resolve-options';
import { buildRevocation } from './revocation';
import { parseTransportUrl } from './transport-url';
import { randomUUID } from 'node:crypto';

/** How many records one store call writes when many tasks were removed at once (a purge). */
const RECORD_CHUNK = 1_000;

/** Makes the connections of an app: the URL schemes it knows and a broker and backend per URL. */
export interface Transports extends CapabilitySource {
  /** The URL schemes these transports connect to, e.g. `['memory:', 'redis:']`. */
  schemes(): string[];
  createBroker(target: URL | TransportClient, settings: BrokerSettings): Broker;
  createBackend(target: URL | TransportClient, settings: BackendSettings, codec: Codec): ResultBackend;
}

/** What workers, Beat and the handles of an app work with. */
export class AppRuntime implements TaskSender, SignatureSender, ResultSource {
  /** Serializes arguments and results; `registerType` adds classes to it. */
  readonly codec = new Codec();
  /** The tasks this app registered. */
  readonly registry = new TaskRegistry();
  private clientIdValue: string | undefined;
  private brokerInstance: Broker | undefined;
  private backendInstance: ResultBackend | undefined;
  private supportValue: TransportSupport | undefined;
  // Not `this.broker`: close() flushes pending publishes after the app is marked closed.
  private readonly publisher = new Publisher(
    () => this.connectBroker(),
    (events) => void this.emitEvents(events),
  );
  private readonly closeables = new Set<Closeable>();
  private closing: Promise<void> | undefined;
  /** True once the workers started from this app have stopped: from then on nothing may be sent. */
  private sealed = false;

  constructor(
    /** The options after defaults. */
    readonly options: ResolvedAppOptions,
    private readonly transports: Transports,
  ) {
    for (const [what, target] of [
      ['broker', options.broker],
      ['backend', options.backend],
    ] as const) {
      if (typeof target === 'string') this.checkUrl(target, what);
    }
  }

  /** This client's id (made on first use); completion notices for tasks it sent go to this channel. */
  get clientId(): string {
    this.clientIdValue ??= randomUUID();
    return this.clientIdValue;
  }

  /** What the app's broker and backend can do, known without connecting to them. */
  get support(): TransportSupport {
    this.supportValue ??= resolveSupport(this.options, this.transports);
    return this.supportValue;
  }

  /** The broker, connected on first use. */
  get broker(): Broker {
    this.assertOpen();
    return this.connectBroker();
  }

  /** The result backend, connected on first use. */
  get backend(): ResultBackend {
    this.assertOpen();
    const { backend } = this.options;
    this.backendInstance ??=
      typeof backend === 'string' || this.transports.isClient(backend)
        ? this.transports.createBackend(this.target(backend), this.backendSettings(), this.codec)
        : backend;
    return this.backendInstance;
  }

  /** Sends a task by name. */
  sendTask<R = unknown>(name: string, args: readonly unknown[] = [], options?: ApplyOptions): AsyncResult<R> {
    return this.applyTask<R>(name, args, options);
  }

  /** Sends one call; the task's registered options apply under the call's. */
  applyTask<R>(name: string, args: readonly unknown[], options: ApplyOptions | undefined): AsyncResult<R> {
    this.assertOpen();
    const { transaction, ...call } = options ?? {};
    if (transaction) this.checkTransaction(transaction);
    const message = this.buildMessage(name, args, call);
    return this.publishMessage<R>(message, call.taskId !== undefined, transaction);
  }

  /**
   * Publishes an already built message (workers use this for chains and callbacks); through
   * `transaction`, a client of the caller's open transaction, when given.
   */
  publishMessage<R>(message: TaskMessage, idempotent: boolean, transaction?: TransactionClient): AsyncResult<R> {
    const span = startSendSpan(message);
    const envelope = span ? this.tracedEnvelope(message, idempotent, [span]) : this.envelope(message, idempotent);
    const debounce = message.limits?.debounce !== undefined;
    const published = transaction
      ? this.publishInTransaction([envelope], transaction, eventList(this.sentEvent(message))).then(
          (outcomes) => outcomes[0] ?? 'published',
        )
      : this.publisher.publish(envelope, this.sentEvent(message));
    const sent = (debounce ? published.then((outcome) => settleDebounce(message, outcome, this)) : published).then(
      (outcome) => {
        if (typeof outcome === 'object' && 'duplicateOf' in outcome) adoptDuplicate(result, outcome.duplicateOf);
      },
    );
    if (span) endWhenSettled(span, sent);
    // A chosen id may already be waiting from another sender, whose copy runs: wait as a bystander.
    // So does a debounced send: a later send's message (and reply channel) may replace its own.
    const result = new AsyncResult<R>(this, message.id, {
      sent,
      taskName: message.task,
      sentHere: !idempotent && !debounce,
      unique: debounce || message.limits?.unique !== undefined,
    });
    return result;
  }

  /**
   * Throws `CELERIAC_UNSUPPORTED_BY_TRANSPORT` unless the broker stores tasks inside a caller's
   * transaction (a send outside it would break the caller's all-or-nothing), or
   * `CELERIAC_INVALID_OPTION` when `transaction` is not a client.
   */
  checkTransaction(transaction: unknown): void {
    if (typeof (transaction as Partial<TransactionClient> | null)?.query !== 'function') {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'The transaction option must be a database client on which you ran BEGIN (an object with ' +
          'query(text, values)), e.g. a node-postgres PoolClient.',
      );
    }
    const { broker, knownBrokers } = this.support;
    if (broker.transactionalPublish) return;
    const others = knownBrokers.filter((known) => known.transactionalPublish).map((known) => known.transport);
    throw unsupportedByTransport(
      'the transaction send option',
      'publishing inside a database transaction',
      broker.transport,
      others,
    );
  }

  /** Stores envelopes through the caller's transaction, at once (not batched with other sends). */
  private async publishInTransaction(
    envelopes: readonly Envelope[],
    transaction: TransactionClient,
    events: CeleriacEvent[],
  ): Promise<PublishOutcome[]> {
    const broker = this.connectBroker();
    if (!brokerSupports(broker, 'transactionalPublish')) {
      throw new CeleriacError(
        'CELERIAC_UNSUPPORTED_BY_TRANSPORT',
        `The broker (${broker.capabilities.transport}) cannot publish inside a transaction: send without the ` +
          'transaction option, after your COMMIT, or use a PostgreSQL broker.',
      );
    }
    const outcomes = await broker.publishInTransaction(envelopes, transaction);
    // After the insert: a task-sent event of a send that then fails would describe nothing.
    void this.emitEvents(events);
    return outcomes;
  }

  /** Builds the message of a call without sending it. */
  buildMessage(name: string, args: readonly unknown[], options: ApplyOptions, extras: MessageExtras = {}): TaskMessage {
    if (!Array.isArray(args)) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        `The arguments of ${name} must be an array, e.g. applyAsync([2, 3]).`,
      );
    }
    const replyTo = 'replyTo' in extras ? extras.replyTo : this.clientId;
    return buildMessage({
      name,
      args,
      call: options,
      task: this.registry.get(name)?.options,
      app: this.options,
      ...extras,
      replyTo,
    });
  }

  /**
   * Publishes the first tasks of a frozen workflow (see `chain`, `group`, `chord`); every message is
   * built and encoded before any is sent, so bad input sends nothing. Workers call it with `next`
   * and the finished step's lineage to start what follows a step.
   */
  launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options: LaunchOptions = {}): Promise<void> {
    this.assertOpen();
    const { next = { steps: [] }, idempotent = false, transaction, ...extras } = options;
    if (transaction) this.checkTransaction(transaction);
    const aligned = alignGroupTtls(node, (step) => this.resultTtlOf(step.task, step.options.resultTtl));
    // Each message is encoded as soon as it is built and only its envelope is kept, so a group of
    // 100,000 never holds 100,000 messages; the batch is one publish with one promise.
    const envelopes: Envelope[] = [];
    const events: CeleriacEvent[] = [];
    // One span a message while a tracer provider is registered, none otherwise.
    const spans: Span[] = [];
    try {
      forEachLaunch(aligned, parentArgs, next, ({ node: step, args, workflow }) => {
        // A task with nothing after it (a plain group's member) carries no workflow fields at all.
        const message = this.buildMessage(step.task, args, step.options, {
          ...extras,
          workflow: Object.keys(workflow).length > 0 ? workflow : undefined,
          step: true,
        });
        const span = startSendSpan(message);
        if (span) spans.push(span);
        envelopes.push(this.envelope(message, idempotent));
        const event = this.sentEvent(message);
        if (event) events.push(event);
      });
    } catch (error) {
      for (const span of spans) failSpan(span, error);
      throw error;
    }
    const sent = transaction
      ? this.publishInTransaction(envelopes, transaction, events)
      : this.publisher.publishMany(envelopes, events);
    for (const span of spans) endWhenSettled(span, sent);
    return sent.then(() => undefined);
  }

  /**
   * Appends events to the log, never failing the caller: events are a view of what happened, and a
   * lost one must not fail the task or publish it describes.
   */
  emitEvents(events: readonly CeleriacEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    try {
      // Closing flushes the last publishes: their events go to the backend if it is still open.
      const backend = this.closed ? this.backendInstance : this.backend;
      if (!backend || !backendSupports(backend, 'events')) return Promise.resolve();
      return backend.events.append(events).catch(() => undefined);
    } catch {
      return Promise.resolve(); // closing
    }
  }

  /** How long a task's result is kept (ms): the call's option, else the task's, else the app's. */
  resultTtlOf(task: string, call: Duration | undefined): number {
    const ttl = call ?? this.registry.get(task)?.options.resultTtl;
    return ttl === undefined ? this.options.resultTtl : resultTtlMilliseconds(ttl);
  }

  /** A handle on the result of task `id`. */
  result<R = unknown>(id: string): AsyncResult<R> {
    return new AsyncResult<R>(this, id);
  }

  /** A handle on the results of group `id` of `size` members. */
  groupResult<T extends readonly unknown[] = unknown[]>(id: string, size: number): GroupResult<T> {
    return new GroupResult<T>(
      this,
      id,
      Array.from({ length: size }, (_, index) => new AsyncResult(this, memberId(id, index))),
    );
  }

  /** A message encoded for the broker. */
  private envelope(message: TaskMessage, idempotent: boolean): Envelope {
    return envelopeOf(message, this.encode(message), idempotent);
  }

  /** A message encoded for the broker; when it does not encode, the send `spans` end as failed. */
  private tracedEnvelope(message: TaskMessage, idempotent: boolean, spans: readonly Span[]): Envelope {
    try {
      return this.envelope(message, idempotent);
    } catch (error) {
      for (const span of spans) failSpan(span, error);
      throw error;
    }
  }

  /** Publishes one envelope without an event (a debounced send published again); see {@link settleDebounce}. */
  republish(envelope: Envelope): Promise<PublishOutcome> {
    return this.publisher.publish(envelope);
  }

  /** The `task-sent` event of a message, when events are on. */
  private sentEvent(message: TaskMessage): CeleriacEvent | undefined {
    const { events } = this.options;
    if (!events.enabled) return undefined;
    const args = events.payloads ? eventPayload(this.codec, message.args, events.payloadLimit) : undefined;
    // One shape for every task-sent (absent fields undefined): spreads of optional fields would
    // make V8 build each event on its slow path.
    return {
      type: 'task-sent',
      taskId: message.id,
      task: message.task,
      queue: message.queue,
      timestamp: Date.now(),
      retries: message.retries,
      eta: message.eta,
      parentId: message.parentId,
      rootId: message.rootId,
      args,
    };
  }

  /** Encodes a message with the app's secret and size limit. */
  encode(message: TaskMessage): string {
    return encodeMessage(this.codec, message, { secret: this.options.secret, maxBytes: this.options.maxMessageSize });
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

  /** Revokes a task: see `Celeriac.revoke`. */
  async revoke(id: string, options: RevokeOptions = {}): Promise<void> {
    const { removed, body } = await this.broker.revoke(buildRevocation(id, options));
    if (removed) await this.recordRemoved([{ id, body: body ?? '' }], 'revoked');
  }

  /** Empties a queue: see `Celeriac.purge`. */
  async purge(queue: string): Promise<number> {
    const removed = await this.broker.purge(queue);
    await this.recordRemoved(removed, 'purged');
    return removed.length;
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
    const context: WorkflowContext = {
      app: this,
      store: (entries) => this.backend.store(entries),
      ttlOf: (step) => this.resultTtlOf(step.task, step.resultTtl),
    };
    for (let start = 0; start < removed.length; start += RECORD_CHUNK) {
      const chunk = removed
        .slice(start, start + RECORD_CHUNK)
        .map(({ id, body }) => ({ id, message: body === '' ? undefined : this.decodeOrUndefined(body) }));
      const entries = chunk.map(({ id, message }): StoreEntry => {
        const entry: StoreEntry = {
          record: { id, state: 'REVOKED', meta: { reason }, date: Date.now() },
          ttl: message ? context.ttlOf(message) : this.options.resultTtl,
        };
        if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
        return entry;
      });
      await this.backend.store(entries);
      for (const { message } of chunk) if (message) traceRemoved(message, reason);
      const settled = chunk.flatMap(({ id, message }) =>
        message?.workflow ? [failWorkflow(context, message, { state: 'REVOKED', reason: `step ${id} ${reason}` })] : [],
      );
      await Promise.all(settled);
    }
  }

  private brokerSettings(): BrokerSettings {
    const { prefix, visibilityTimeout, maxDeliveries, revokeTtl, maxMessageSize, failedTtl, failedLimit, replication } =
      this.options;
    return { prefix, visibilityTimeout, maxDeliveries, revokeTtl, maxMessageSize, failedTtl, failedLimit, replication };
  }

  private backendSettings(): BackendSettings {
    const { prefix, events, replication } = this.options;
    return { prefix, clientId: this.clientId, eventsMaxLength: events.maxLength, replication };
  }

  private async closeAll(): Promise<void> {
    // Workers finishing their last tasks still store results and start the next workflow steps.
    await Promise.allSettled([...this.closeables].map((closeable) => closeable.close()));
    this.sealed = true;
    await this.publisher.drain();
    const closing: Array<Promise<void>> = [];
    if (this.brokerInstance) closing.push(this.brokerInstance.close());
    if (this.backendInstance && (this.backendInstance as unknown) !== this.brokerInstance)
      closing.push(this.backendInstance.close());
    await Promise.all(closing);
  }

  private connectBroker(): Broker {
    const { broker } = this.options;
    this.brokerInstance ??=
      typeof broker === 'string' || this.transports.isClient(broker)
        ? this.transports.createBroker(this.target(broker), this.brokerSettings())
        : broker;
    return this.brokerInstance;
  }

  /** What the transports connect to: a URL, or the client object given in its place. */
  private target(given: string | TransportClient): URL | TransportClient {
    return typeof given === 'string' ? parseTransportUrl(given) : given;
  }

  private checkUrl(target: string, what: 'broker' | 'backend'): void {
    let url: URL;
    try {
      url = parseTransportUrl(target);
    } catch {
      throw new CeleriacError(
        'CELERIAC_UNSUPPORTED_URL',
        `The ${what} URL ${JSON.stringify(target)} is not a URL. Use e.g. 'redis://127.0.0.1:6379/0' or 'memory://'.`,
      );
    }
    if (!this.transports.schemes().includes(url.protocol)) throw unsupportedUrl(url, what, this.transports.schemes());
  }

  private assertOpen(): void {
    if (this.sealed) throw new CeleriacError('CELERIAC_CLOSED', 'This app was closed; create a new one to send tasks.');
  }
}

/** The error for a URL whose scheme no transport of the app knows. */
export function unsupportedUrl(url: URL, what: string, schemes: readonly string[]): CeleriacError {
  return new CeleriacError(
    'CELERIAC_UNSUPPORTED_URL',
    `The ${what} URL scheme "${url.protocol}" is not supported here (supported: ${schemes.join(', ')}). Import ` +
      `Celeriac from the 'celeriac' package for Redis.`,
  );
}

/** An event as a list of none or one. */
function eventList(event: CeleriacEvent | undefined): CeleriacEvent[] {
  return event ? [event] : [];
}
