/**
 * The pipe between a worker and a pool child: fd 3 in the child, carrying one JSON packet (a
 * message, or a list of the messages of one tick) per line. Node's built-in IPC channel would make
 * every child load node:child_process, node:net and the stream modules while it starts (~10 ms of
 * a fork child's ~80 ms, measured); the child's end of this pipe needs only node:fs (parent-pipe.ts).
 */

/** The child's file descriptor for the pipe (after stdin, stdout, stderr). */
export const CHANNEL_FD = 3;

const NEWLINE = 0x0a;

/** One packet as a line (JSON escapes newlines inside strings, so a line is always one packet). */
export function encodePacket(packet: unknown): string {
  return `${JSON.stringify(packet)}\n`;
}

/**
 * Reassembles packets from the chunks a pipe delivers, which may split or join lines. A line that
 * spans many chunks is joined once, when its end arrives, so a large message costs linear time.
 */
export class PacketReader {
  /** Chunks of the line not yet complete. */
  private partial: Buffer[] = [];

  constructor(private readonly onPacket: (packet: unknown) => void) {}

  /** Takes the next chunk and hands over every packet it completes, in order. */
  push(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    while (end !== -1) {
      const piece = chunk.subarray(start, end);
      const line = this.partial.length === 0 ? piece : Buffer.concat([...this.partial, piece]);
      this.partial = [];
      this.deliver(line.toString('utf8'));
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    // The chunk's buffer may be reused by its reader: keep a copy of the unfinished rest.
    if (start < chunk.length) this.partial.push(Buffer.from(chunk.subarray(start)));
  }

  private deliver(line: string): void {
    // A line that is not JSON was not written by the other side's code (a task wrote to fd 3):
    // it is skipped, and the packets around it still arrive.
    let packet: unknown;
    try {
      packet = JSON.parse(line) as unknown;
    } catch {
      return;
    }
    this.onPacket(packet);
  }
}
