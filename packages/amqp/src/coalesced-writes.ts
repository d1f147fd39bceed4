/**
 * One socket write per round of frames. amqplib hands each frame (an ack, a publish's three frames
 * in one buffer) to the socket with a write of its own, from its multiplexer's pass over the
 * channels; on this kind of machine each write is a system call costing tens of µs, more than all
 * else a task costs. Corking the socket for the length of a pass turns a pass's frames into one
 * `writev`. The order of frames is unchanged, and the socket's high-water mark still stops a pass
 * (amqplib waits for 'drain' as before).
 */
import type { ChannelModel } from 'amqplib';
import type { Writable } from 'node:stream';

/** The part of amqplib's connection internals this relies on (checked at run time). */
interface Multiplexer {
  out?: Writable;
  _readIncoming?: () => void;
}

/**
 * Makes `model`'s multiplexer write each pass in one socket write. Returns false, and changes
 * nothing, when amqplib's internals are not as expected (its writes then stay one a frame).
 */
export function coalesceWrites(model: ChannelModel): boolean {
  const muxer = (model.connection as unknown as { muxer?: Multiplexer }).muxer;
  const pass = muxer?._readIncoming;
  const out = muxer?.out;
  if (!muxer || typeof pass !== 'function' || typeof out?.cork !== 'function') return false;
  muxer._readIncoming = function corkedPass(this: Multiplexer) {
    out.cork();
    try {
      pass.call(this);
    } finally {
      out.uncork();
    }
  };
  return true;
}
