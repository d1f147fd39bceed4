/**
 * The pipe between a worker and a pool child: fd 3 in the child, carrying one JSON packet (a
 * message, or a list of the messages of one tick) per line. Node's built-in IPC channel would make
 * every child load node:child_process, node:net and the stream modules while it starts (~10 ms of
 * a fork child's ~80 ms, measured); the child side of this pipe needs only node:fs.
 */

/** The child's file descriptor for the pipe (after stdin, stdout, stderr). */
export const CHANNEL_FD = 3;

const NEWLINE = 0x0a;

/** One packet as a line (JSON escapes newlines inside strings, so a line is always one packet). */
export function encodePacket(packet: unknown): string {
  return `${JSON.stringify(packet)}\n`;
}

/** Reassembles packets from the chunks a pipe delivers, which may split or join lines. */
export class PacketReader {
  private rest: Buffer | undefined;

  constructor(private readonly onPacket: (packet: unknown) => void) {}

  /** Takes the next chunk and hands over every packet it completes, in order. */
  push(chunk: Buffer): void {
    let data = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    let end = data.indexOf(NEWLINE);
    while (end !== -1) {
      const line = data.toString('utf8', 0, end);
      data = data.subarray(end + 1);
      end = data.indexOf(NEWLINE);
      // A line that is not JSON was not written by the other side's code (a task wrote to fd 3):
      // it is skipped, and the packets around it still arrive.
      let packet: unknown;
      try {
        packet = JSON.parse(line) as unknown;
      } catch {
        continue;
      }
      this.onPacket(packet);
    }
    this.rest = data.length > 0 ? Buffer.from(data) : undefined;
  }
}
