/**
 * The child's end of the pipe to its worker (see pipe-channel.ts). It is a blocking descriptor:
 * reads wait in a thread of libuv's pool and writes are synchronous, so a child never loads
 * node:net and the stream modules (~3 ms of every fork child's start-up, measured), and messages
 * leave in the order written.
 *
 * A read waiting in the pool has a cost at exit: Node joins the pool's threads as the process ends,
 * and the one blocked here returns only once the pipe closes. So a child that exits while a read
 * waits (a task called process.exit(), an error no one caught) first tells its parent, which closes
 * its end (child-handle.ts). A parent that died has closed it already.
 */
import { read, writeSync } from 'node:fs';
import { CHANNEL_FD, encodePacket, PacketReader } from './pipe-channel';
import { PROTOCOL_VERSION, type ChildMessage } from './protocol';

/** Bytes read from the pipe at a time. */
const READ_SIZE = 64 * 1024;

/**
 * Hands the packets from the parent to `onPackets`, all those of one read at once, until the pipe
 * closes (the parent retired this child, or died): then `onClosed` runs, once.
 */
export function listenToParent(onPackets: (packets: unknown[]) => void, onClosed: () => void): void {
  let packets: unknown[] = [];
  const reader = new PacketReader((packet) => packets.push(packet));
  const buffer = Buffer.allocUnsafe(READ_SIZE);
  let reading = true;
  // First among the exit listeners: one of the app's that throws or exits skips those after it.
  process.prependOnceListener('exit', () => {
    if (reading) sendToParent({ v: PROTOCOL_VERSION, type: 'exiting' } satisfies ChildMessage);
  });
  const next = (): void =>
    read(CHANNEL_FD, buffer, 0, READ_SIZE, null, (error, bytes) => {
      // End of file, or a broken pipe: the parent is done with us, or gone.
      if (error || bytes === 0) {
        reading = false;
        return onClosed();
      }
      // The reader copies what it keeps, so the buffer can take the next read.
      reader.push(buffer.subarray(0, bytes));
      const read = packets;
      packets = [];
      if (read.length > 0) onPackets(read);
      next();
    });
  next();
}

/** Writes one message (or a list) to the parent; it has left when this returns. */
export function sendToParent(packet: unknown): void {
  const data = Buffer.from(encodePacket(packet));
  try {
    for (let offset = 0; offset < data.length;) offset += writeSync(CHANNEL_FD, data, offset);
  } catch {
    // The parent is gone: the read ends too, and with it this child.
  }
}
