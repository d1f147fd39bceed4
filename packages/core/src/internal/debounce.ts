/**
 * The sender's half of debounce. The broker answers a debounced send whose key a task is waiting
 * out its window with that task's id; the sender then encodes its message again under that id (and
 * signs it for that id) and publishes it as a replacement, which swaps the waiting task's message
 * and start time in one atomic step, as long as the task still waits. The broker never needs the
 * app's secret, and a send is never lost: one that finds the task gone sends afresh.
 */
import type { PublishOutcome } from '../broker';
import { envelopeOf, type Envelope, type TaskMessage } from '../message';

/** What settling a debounced send needs of the app. */
export interface DebounceSender {
  /** Encodes (and signs) a message as the app does. */
  encode(message: TaskMessage): string;
  /** Publishes one envelope, batched with the other sends of its tick. */
  republish(envelope: Envelope): Promise<PublishOutcome>;
}

/**
 * Follows a debounced send's publish `outcome` until the message is stored: `'published'` (it
 * opened a window under its own id) or `{ duplicateOf }` (it replaced the message of that waiting
 * task). Each further round means another task's window opened or closed meanwhile, so it ends.
 */
export async function settleDebounce(
  message: TaskMessage,
  outcome: PublishOutcome,
  sender: DebounceSender,
): Promise<PublishOutcome> {
  let current = outcome;
  for (;;) {
    if (current === 'missed') {
      // The task it was to replace left its wait: open a window of its own.
      const fresh = restamped(message, message.id);
      current = await sender.republish(envelopeOf(fresh, sender.encode(fresh), false));
    } else if (typeof current === 'object' && 'debounceInto' in current) {
      const into = restamped(message, current.debounceInto);
      current = await sender.republish({ ...envelopeOf(into, sender.encode(into), false), replaces: true });
    } else {
      return current;
    }
  }
}

/** The message under `id`, due a window from now (or at the eta it was sent with, if later). */
function restamped(message: TaskMessage, id: string): TaskMessage {
  const window = message.limits?.debounce?.window ?? 0;
  return { ...message, id, eta: Math.max(message.eta ?? 0, Date.now() + window) };
}
