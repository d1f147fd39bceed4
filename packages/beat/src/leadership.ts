/**
 * Leadership through the store's lease.
 *
 *   standby ──lease taken──► leading ──renewal refused, or not renewed before it lapsed──► standby
 *
 * A leader renews every third of the lease. A standby asks again when the holder's lease would
 * lapse (the store says how long it has left), so it takes over at most one lease after the
 * leader's last renewal, with one call per renewal period at most.
 */
import type { BeatStore } from '@celeriac/core';
import type { CancelTimer } from './clock';
import type { ResolvedSchedulerOptions } from './options';

/** What the scheduler hears from its leadership. */
export interface LeadershipEvents {
  /** The lease was taken: fire from now on. */
  onLeading(): void;
  /** The lease was lost: stop firing at once. */
  onStandby(reason: string): void;
  /** The lease was renewed (a good time to re-check timers against the wall clock). */
  onRenewed(): void;
}

/** Takes, renews and releases the lease of one scheduler. */
export class Leadership {
  private leadingUntil = 0;
  private leadingNow = false;
  private stopped = false;
  private cancelTick: CancelTimer | undefined;
  private ticking: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: BeatStore,
    private readonly options: ResolvedSchedulerOptions,
    private readonly events: LeadershipEvents,
  ) {}

  /** True while this scheduler holds the lease and, by its own clock, the lease has not lapsed. */
  get leading(): boolean {
    return this.leadingNow && this.options.clock.now() < this.leadingUntil;
  }

  /** The attempt in progress (or the last one), for waiting until the store has answered. */
  get attempt(): Promise<void> {
    return this.ticking;
  }

  /** Makes the first attempt; later ones follow on timers. */
  start(): Promise<void> {
    this.ticking = this.tick();
    return this.ticking;
  }

  /** Steps down (the store refused a leader's call). */
  lose(reason: string): void {
    if (!this.leadingNow) return;
    this.leadingNow = false;
    this.events.onStandby(reason);
  }

  /** Stops renewing and gives the lease up, so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTick?.();
    await this.ticking;
    this.leadingNow = false;
    // Also when not leading: a first attempt may have taken the lease while stopping.
    await this.store.releaseLease(this.options.id).catch(() => false);
  }

  private async tick(): Promise<void> {
    const { clock, lease, id, logger } = this.options;
    const renewEvery = Math.max(10, Math.floor(lease / 3));
    const started = clock.now();
    let wait = renewEvery;
    try {
      const state = await this.store.acquireLease(id, lease);
      if (state.held) {
        this.leadingUntil = started + lease;
        if (!this.leadingNow && !this.stopped) {
          this.leadingNow = true;
          this.events.onLeading();
        } else if (this.leadingNow) {
          this.events.onRenewed();
        }
      } else {
        this.lose('another scheduler holds the lease');
        wait = Math.min(Math.max(1, state.ttl) + 1, lease);
      }
    } catch (error) {
      logger.warn(
        { scheduler: id, error: String(error) },
        'Could not reach the store to take or renew the lease; trying again',
      );
      if (this.leadingNow && clock.now() >= this.leadingUntil)
        this.lose('the lease could not be renewed before it lapsed');
      if (this.leadingNow) wait = Math.max(1, Math.min(renewEvery, this.leadingUntil - clock.now()));
    }
    if (this.stopped) return;
    this.cancelTick = clock.setTimer(() => {
      this.ticking = this.tick();
    }, wait);
  }
}
