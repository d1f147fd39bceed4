/**
 * The child's end of the pipe to its worker (see pipe-channel.ts), read and written through the
 * event loop: messages leave in the order written, and nothing ties up a thread while the child
 * waits for work, so a child that exits or crashes at any moment is gone at once.
 */
import { Socket } from 'node:net';
import { CHANNEL_FD, encodePacket, PacketReader } from './pipe-channel';

let socket: Socket | undefined;

/** The pipe, opened once for reading and writing (libuv refuses a second handle on one fd). */
function pipe(): Socket {
  // An error here means the parent is gone; listenToParent acts on it, and a child that is only
  // reporting a failed start exits anyway.
  socket ??= new Socket({ fd: CHANNEL_FD, readable: true, writable: true }).on('error', () => undefined);
  return socket;
}

/**
 * Hands every packet from the parent to `onPacket`, until the pipe closes (the parent retired this
 * child, or died): then `onClosed` runs, once.
 */
export function listenToParent(onPacket: (packet: unknown) => void, onClosed: () => void): void {
  const reader = new PacketReader(onPacket);
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  pipe()
    .on('data', (chunk: Buffer) => reader.push(chunk))
    .on('end', close)
    .on('close', close)
    // A broken pipe means the parent is gone: the same as a close.
    .on('error', close);
}

/** Writes one message (or a list) to the parent; `written` runs once it has left. */
export function sendToParent(packet: unknown, written?: () => void): void {
  pipe().write(encodePacket(packet), written);
}
