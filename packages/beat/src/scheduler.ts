/**
 * The scheduler: fires each entry's slots while it leads.
 *
 *   idle ──start()──► standby ⇄ leading ──close()──► closed
 *
 * Leading, it sleeps until the earliest due slot (one timer; nothing is polled), then for each due
 * entry decides which slots to fire (its catch-up policy), claims each in the store (a
 * compare-and-set of the entry's last fired slot, refused to a scheduler that lost the lease) and
 * sends the task with the id `beat:<entry>:<slot>`. Between firings it only renews its lease.
 * On taking the lease it first sends again each recent claimed slot whose task left no record (a
 * leader that died between its claim and the send): see `resendClaimed`.
 * Entry changes from any process arrive as a notification and are applied between passes; passes,
 * reloads and take-overs run one at a time, in order.
 */
import { CeleriacError, type BeatStore } from '@celeriac/core';
import { decideCatchUp } from './catch-up';
import type { CancelTimer } from './clock';
import { entryStorageOf, runtimeEntries, type EntrySource, type EntryStorage, type ResolvedEntry } from './entries';
import type { BeatHost } from './host';
import { Leadership } from './leadership';
import { MAX_CATCH_UP, resolveSchedulerOptions, type ResolvedSchedulerOptions, type SchedulerOptions } from './options';
import { SlotSender, slotTaskId, type FiredSlot } from './slot-sender';
import { keepProcessAlive } from '@celeriac/core/internal';

/** Where a scheduler is in its life. */
export type SchedulerState = 'idle' | 'standby' | 'leading' | 'closed';

/** What a scheduler tells listeners. */
export interface SchedulerEvents {
  /** This scheduler took the lease. */
  leading: [];
  /** This scheduler lost or gave up the lease. */
  standby: [reason: string];
  /** A slot's task was accepted by the broker. */
  fired: [fired: FiredSlot];
  /**
   * On taking the lease, a slot claimed before (by a leader that may have died before sending it)
   * whose task left no record was sent again; the broker skips the copy when the first one is still
   * waiting or running.
   */
  resent: [resent: FiredSlot];
  /** Due slots were left unfired by the entry's catch-up policy. */
  skipped: [skipped: { entry: string; count: number | 'many' }];
  /** The leader applied a change of entries (added, changed or removed at run time); names of all entries now. */
  changed: [entries: string[]];
}

/** One entry as the scheduler tracks it. */
interface EntryState {
  entry: ResolvedEntry;
  /** The last slot handled (fired or skipped), or where the entry started. */
  cursor: number;
  /** When to look at the entry next: its next slot, or a retry time. */
  due: number | undefined;
}

/** How long a failed claim (or take-over) waits before it is tried again. */
const CLAIM_RETRY_MS = 1_000;

/** How recent (in leases, before the take-over) a claim must be for a new leader to send its slot again. */
const RESEND_WITHIN_LEASES = 2;

/** Fires periodic entries while it holds the lease; see the module comment. */
export class Scheduler {
  /** The options after defaults. */
  readonly options: ResolvedSchedulerOptions;
  private stateNow: SchedulerState = 'idle';
  /** Counts the times this scheduler took the lease, so that a retried take-over knows it is still current. */
  private term = 0;
  /** True once the take-over of the current term finished: until then nothing is armed or fired. */
  private tookOver = false;
  private table = new Map<string, EntryState>();
  private queue: Promise<void> = Promise.resolve();
  private reloadQueued = false;
  private closing: Promise<void> | undefined;
  private releaseProcess: (() => void) | undefined;
  private cancelTimer: CancelTimer | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly leadership: Leadership;
  private readonly storage: EntryStorage;
  private readonly sender: SlotSender;
  private readonly listeners: { [E in keyof SchedulerEvents]: Set<(...args: SchedulerEvents[E]) => void> } = {
    leading: new Set(),
    standby: new Set(),
    fired: new Set(),
    resent: new Set(),
    skipped: new Set(),
    changed: new Set(),
  };

  constructor(
    private readonly host: BeatHost,
    private readonly store: BeatStore,
    private readonly codeEntries: () => readonly ResolvedEntry[],
    options: SchedulerOptions = {},
  ) {
    this.options = resolveSchedulerOptions(options);
    this.storage = entryStorageOf(host);
    this.sender = new SlotSender(
      host,
      this.options.clock,
      this.options.logger,
      () => this.leadership.leading,
      (fired, kind) => this.emit(kind, fired),
      (name, slot) => store.settleClaim(name, slot),
    );
    this.leadership = new Leadership(store, this.options, {
      onLeading: () => {
        this.stateNow = 'leading';
        this.term += 1;
        this.tookOver = false;
        this.options.logger.info({ scheduler: this.options.id }, 'Leading: this scheduler fires the periodic tasks');
        this.emit('leading');
        const term = this.term;
        const takenAt = this.options.clock.now();
        this.enqueue(() => this.takeOver(term, takenAt));
      },
      onStandby: (reason) => {
        if (this.stateNow === 'leading') this.stateNow = 'standby';
        this.disarm();
        this.options.logger.warn({ scheduler: this.options.id, reason }, `Standby: ${reason}`);
        this.emit('standby', reason);
      },
      onRenewed: () => this.arm(),
    });
  }

  /** This scheduler's name in the lease and logs. */
  get id(): string {
    return this.options.id;
  }

  /** `idle`, `standby`, `leading` or `closed`. */
  get state(): SchedulerState {
    return this.stateNow;
  }

  /** Listens to an event; returns a function that stops listening. */
  on<E extends keyof SchedulerEvents>(event: E, listener: (...args: SchedulerEvents[E]) => void): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  /** The entries this scheduler fires (known once it leads), with the next time each is looked at. */
  entries(): Array<{ name: string; task: string; source: EntrySource; next: number | undefined }> {
    return [...this.table.values()].map(({ entry, due }) => ({
      name: entry.name,
      task: entry.task,
      source: entry.source,
      next: due,
    }));
  }

  /** Listens for entry changes and makes the first attempt at the lease; resolves as leader or standby. */
  async start(): Promise<void> {
    if (this.stateNow !== 'idle')
      throw new CeleriacError(
        'CELERIAC_INVALID_STATE',
        `This scheduler was already started (it is ${this.stateNow}); create another with app.beat.scheduler().`,
      );
    this.stateNow = 'standby';
    // A running scheduler holds its process open: its connections let go of it when they are quiet.
    this.releaseProcess = keepProcessAlive();
    this.unsubscribe = await this.store.onEntriesChange(() => this.requestReload());
    await this.leadership.start();
    await this.idle();
  }

  /** Re-reads the entries (runtime ones from the store) and applies changes. */
  requestReload(): void {
    if (this.reloadQueued || this.stateNow === 'closed') return;
    this.reloadQueued = true;
    this.enqueue(async () => {
      this.reloadQueued = false;
      if (this.leadership.leading) await this.refresh(false);
    });
  }

  /** Resolves once no pass, reload, take-over or lease call is running or queued. */
  async idle(): Promise<void> {
    let queue: Promise<void>;
    let lease: Promise<void>;
    do {
      queue = this.queue;
      lease = this.leadership.attempt;
      await Promise.all([queue, lease]);
    } while (queue !== this.queue || lease !== this.leadership.attempt);
  }

  /** Stops firing, gives the lease up (a standby takes over at once) and stops listening. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    const wasStarted = this.stateNow !== 'idle';
    this.stateNow = 'closed';
    this.releaseProcess?.();
    this.disarm();
    await this.idle();
    if (!wasStarted) return;
    await this.leadership.stop();
    await this.unsubscribe?.().catch(() => undefined);
    await this.sender.stop();
    this.options.logger.info({ scheduler: this.options.id }, 'Scheduler closed');
  }

  /**
   * Loads the entries and slots, sends again the recent claimed slots that left no record, then
   * arms the timer. Nothing fires until this has succeeded (a failure tries again), so the claims
   * read are the predecessor's, not newer ones of this scheduler.
   */
  private async takeOver(term: number, takenAt: number): Promise<void> {
    if (term !== this.term || this.stateNow !== 'leading' || !this.leadership.leading) return;
    try {
      await this.refresh(true);
      if (!this.leadership.leading) return;
      await this.resendClaimed(takenAt);
      this.tookOver = true;
      this.arm();
    } catch (error) {
      this.options.logger.error(
        { scheduler: this.options.id, error: String(error) },
        `Could not take over the schedule: ${(error as Error).message}; trying again`,
      );
      this.options.clock.setTimer(() => this.enqueue(() => this.takeOver(term, takenAt)), CLAIM_RETRY_MS);
    }
  }

  /**
   * Exactly once across a leader's death. The leader claims a slot, sends its task, and settles the
   * claim once the broker accepted the task; one that dies before it settled leaves the slot claimed.
   * So a new leader looks at each entry's last unsettled claim, if it was claimed at most two leases
   * before the take-over (a leader that died right after its claim had renewed its lease at most
   * then, so the lease ran out within one lease of the claim, and a standby takes it when it runs
   * out), and sends it again, with the same id, when the result backend has no record of that id:
   *
   * - never sent: no record, not in the broker: this send is its firing;
   * - sent, and the leader died before it settled the claim (one round trip), still waiting or
   *   running: no record yet. A broker that skips a publish of an id it holds makes the copy a
   *   no-op (logged and emitted as `resent` all the same); one that does not (RabbitMQ, the Celery
   *   protocol) queues it, and the task runs twice;
   * - sent and finished: workers store the record (SUCCESS also for `ignoreResult`, FAILURE,
   *   REVOKED) before they ack, so it is there and nothing is sent;
   * - finished long ago, record expired: the two-lease limit keeps it from being sent again
   *   (unless `resultTtl` is shorter than that);
   * - the predecessor is alive but cut off: it stops sending (and retrying) when its lease runs out
   *   by its own clock, before this scheduler can have taken the lease.
   *
   * What is left: a task that finishes between the record check and this publish (one round trip)
   * runs twice, and a publish of the predecessor delayed in the network past its lease can too.
   */
  private async resendClaimed(takenAt: number): Promise<void> {
    const claims = await this.store.lastClaims();
    const within = RESEND_WITHIN_LEASES * this.options.lease;
    await Promise.all(
      [...claims].map(async ([name, claim]) => {
        const state = this.table.get(name);
        if (!state || !(takenAt - claim.at <= within)) return;
        const id = slotTaskId(name, claim.slot);
        const recorded = await this.host.result(id).state();
        if (recorded !== 'PENDING') {
          this.options.logger.debug(
            { entry: name, id, state: recorded },
            `The last claimed slot of ${name} was sent (its task is ${recorded})`,
          );
          return;
        }
        if (this.leadership.leading) await this.sender.send(state.entry, claim.slot, 'resent');
      }),
    );
  }

  /** Loads the runtime entries, reconciles the stored slots with every entry, and re-arms. */
  private async refresh(fresh: boolean): Promise<void> {
    const entries = await this.firingEntries();
    const now = this.options.clock.now();
    const slots = await this.store.syncSlots(
      this.options.id,
      entries.map((entry) => ({ name: entry.name, fingerprint: entry.fingerprint, since: entry.since ?? now })),
    );
    if (slots === 'not-leader') return this.leadership.lose('the store refused a leader call (lease lost)');
    const table = new Map<string, EntryState>();
    for (const entry of entries) {
      const known = fresh ? undefined : this.table.get(entry.name);
      const stored = slots.get(entry.name) ?? entry.since ?? now;
      const cursor = known && known.entry.fingerprint === entry.fingerprint ? Math.max(known.cursor, stored) : stored;
      table.set(entry.name, { entry, cursor, due: entry.schedule.next(cursor) });
    }
    this.table = table;
    this.arm();
    if (!fresh) {
      this.options.logger.info(
        { scheduler: this.options.id, entries: [...table.keys()] },
        `Entries changed: ${table.size} entries now`,
      );
      this.emit('changed', [...table.keys()]);
    }
  }

  /** Code entries, then the runtime entries whose names no code entry takes (each ignored one is logged). */
  private async firingEntries(): Promise<ResolvedEntry[]> {
    const code = this.codeEntries();
    const runtime = runtimeEntries(
      await this.store.listEntries(),
      new Set(code.map((entry) => entry.name)),
      this.storage,
      (ignored) => {
        if (ignored.shadowed)
          this.options.logger.warn(
            { entry: ignored.name },
            `The runtime entry ${ignored.name} is ignored: an entry in code has the same name`,
          );
        else if ((ignored.error as CeleriacError).code === 'CELERIAC_BAD_SIGNATURE')
          this.options.logger.warn(
            { entry: ignored.name, code: 'CELERIAC_BAD_SIGNATURE' },
            `Refusing the stored entry ${ignored.name}: ${ignored.error.message}`,
          );
        else
          this.options.logger.error(
            { entry: ignored.name, error: String(ignored.error) },
            `Ignoring the stored entry ${ignored.name}: ${ignored.error.message}`,
          );
      },
    );
    return [...code, ...runtime];
  }

  /** Sets one timer for the earliest due entry (or a pass at once, when one is due). */
  private arm(): void {
    this.disarm();
    if (this.stateNow !== 'leading' || !this.leadership.leading || !this.tookOver) return;
    let earliest = Infinity;
    for (const { due } of this.table.values()) if (due !== undefined && due < earliest) earliest = due;
    if (earliest === Infinity) return;
    this.cancelTimer = this.options.clock.setTimer(() => {
      this.cancelTimer = undefined;
      this.enqueue(() => this.firePass());
    }, earliest - this.options.clock.now());
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private async firePass(): Promise<void> {
    if (this.stateNow !== 'leading' || !this.leadership.leading || !this.tookOver) return;
    const now = this.options.clock.now();
    const due = [...this.table.values()].filter((state) => state.due !== undefined && state.due <= now);
    await Promise.all(due.map((state) => this.fireEntry(state, now)));
    this.arm();
  }

  /** Fires what is due of one entry, by its catch-up policy. */
  private async fireEntry(state: EntryState, now: number): Promise<void> {
    const { entry } = state;
    const range = entry.schedule.slotsBetween(state.cursor, now, MAX_CATCH_UP);
    const latest = range.slots[range.slots.length - 1];
    if (latest === undefined) {
      state.due = entry.schedule.next(state.cursor); // woke early
      return;
    }
    const decision = decideCatchUp(entry.catchUp, range, now, this.options.lease);
    const previous = state.cursor;
    state.cursor = latest;
    state.due = entry.schedule.next(latest);
    if (decision.skipped !== 0) {
      this.options.logger.info(
        { entry: entry.name, skipped: decision.skipped, catchUp: entry.catchUp },
        `Skipped ${decision.skipped} missed slot(s) of ${entry.name} (catchUp: '${entry.catchUp}')`,
      );
      this.emit('skipped', { entry: entry.name, count: decision.skipped });
    }
    for (const slot of decision.fire) {
      if (!this.leadership.leading) return;
      let outcome;
      try {
        outcome = await this.store.claimSlot(this.options.id, entry.name, slot, this.options.clock.now());
      } catch (error) {
        this.options.logger.error(
          { entry: entry.name, error: String(error) },
          `Could not claim a slot of ${entry.name}; trying again`,
        );
        state.cursor = Math.max(previous, slot - 1);
        state.due = this.options.clock.now() + CLAIM_RETRY_MS;
        return;
      }
      if (outcome === 'not-leader') return this.leadership.lose('the store refused a claim (lease lost)');
      if (outcome === 'stale') {
        this.options.logger.debug(
          { entry: entry.name, slot: new Date(slot).toISOString() },
          `Slot of ${entry.name} was already fired`,
        );
        continue;
      }
      await this.sender.send(entry, slot);
    }
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => {
      this.options.logger.error(
        { scheduler: this.options.id, error: String(error) },
        `Scheduler step failed: ${(error as Error).message}`,
      );
      if (this.stateNow === 'leading') {
        this.disarm();
        this.options.clock.setTimer(() => this.requestReload(), CLAIM_RETRY_MS);
      }
    });
  }

  private emit<E extends keyof SchedulerEvents>(event: E, ...args: SchedulerEvents[E]): void {
    for (const listener of this.listeners[event]) listener(...args);
  }
}
