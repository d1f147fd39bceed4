/**
 * Messages that left the delay levels a little before their eta (by `delayLead`), held unacked in
 * this process for those last milliseconds, by queue, with one timer that says when the earliest
 * comes due.
 */
import type { Channel } from 'amqplib';
import type { Received } from './received';

/** The early arrivals of every queue of one transport. */
export class EarlyArrivals {
  private readonly held = new Map<string, Received[]>();
  private timer: NodeJS.Timeout | undefined;

  /** `due` is called when the earliest held message comes due. */
  constructor(private readonly due: () => void) {}

  /** Holds `received` until its eta. */
  hold(queue: string, received: Received): void {
    const held = this.held.get(queue) ?? [];
    held.push(received);
    held.sort((a, b) => (a.eta ?? 0) - (b.eta ?? 0));
    this.held.set(queue, held);
    this.arm();
  }

  /** Takes out the messages of `queue` that are due now. */
  takeDue(queue: string): Received[] {
    const held = this.held.get(queue);
    if (!held) return [];
    const now = Date.now();
    this.held.set(
      queue,
      held.filter((received) => (received.eta ?? 0) > now),
    );
    return held.filter((received) => (received.eta ?? 0) <= now);
  }

  /** Takes out every message held for `queue`. */
  takeAll(queue: string): Received[] {
    return this.held.get(queue)?.splice(0) ?? [];
  }

  /** True when a message of `queue` is due. */
  hasDue(queue: string): boolean {
    const now = Date.now();
    return (this.held.get(queue) ?? []).some((received) => (received.eta ?? 0) <= now);
  }

  /** How many messages of `queue` are held. */
  count(queue: string): number {
    return this.held.get(queue)?.length ?? 0;
  }

  /** Forgets those delivered on `channel`: it closed, and RabbitMQ requeued them. */
  forgetChannel(channel: Channel): void {
    for (const [queue, held] of this.held) {
      this.held.set(
        queue,
        held.filter((received) => received.channel !== channel),
      );
    }
  }

  /** Stops the timer. */
  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    clearTimeout(this.timer);
    const etas = [...this.held.values()].flatMap((held) => held.map((received) => received.eta ?? 0));
    if (etas.length === 0) return;
    this.timer = setTimeout(this.due, Math.max(0, Math.min(...etas) - Date.now()) + 1);
    this.timer.unref();
  }
}
