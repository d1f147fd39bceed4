/**
 * The child's end of the pipe to its worker (see pipe-channel.ts): blocking writes, so messages
 * leave in order and the child never outruns a parent that is slow to read; reads on libuv's
 * thread pool, so a child waiting for work keeps its event loop free.
 */
import { read, writeSync } from 'node:fs';
import { CHANNEL_FD, encodePacket, PacketReader } from './pipe-channel';

/** Writes one message (or a list) to the parent. */
export function sendToParent(packet: unknown): void {
  const bytes = Buffer.from(encodePacket(packet));
  // A blocking pipe writes everything, except when a signal interrupts: then write the rest.
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(CHANNEL_FD, bytes, offset);
}

/**
 * Hands every packet from the parent to `onPacket`, until the pipe closes (the parent retired this
 * child, or died): then `onClosed` runs.
 */
export function listenToParent(onPacket: (packet: unknown) => void, onClosed: () => void): void {
  const reader = new PacketReader(onPacket);
  const buffer = Buffer.allocUnsafe(64 * 1024);
  const next = (): void =>
    read(CHANNEL_FD, buffer, 0, buffer.length, null, (error, bytesRead) => {
      if (error || bytesRead === 0) return onClosed();
      reader.push(buffer.subarray(0, bytesRead));
      next();
    });
  next();
}
