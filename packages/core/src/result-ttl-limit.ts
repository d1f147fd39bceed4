/** The result TTL limit, apart from the option checks so that message checks can use it without them. */
/**
 * The longest result TTL, in ms: Redis refuses an expiry past its 64-bit clock, and a TTL past
 * 2^53 - 1 ms (about 285,000 years) no longer survives the trip through a number unchanged.
 */
export const MAX_RESULT_TTL_MS = Number.MAX_SAFE_INTEGER;
