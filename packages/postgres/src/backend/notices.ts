/**
 * What the result backend says on its channel after a store: one notification per statement (more
 * only when a batch's notice would pass PostgreSQL's 8000-byte payload limit). A notice names the
 * tasks that reached a ready state, so that any process awaiting one reads its row, and carries the
 * records addressed to a client (the `replyTo` of the tasks it sent), so that the sender hears every
 * state change, in order, without a read.
 */

/** The payload of one notification, as JSON. */
export interface ResultNotice {
  /** The backend instance that stored the records (it told its own waiters already). */
  readonly from: string;
  /** Tasks stored in a ready state, or whose record addressed to a client was too large to carry. */
  readonly ids: string[];
  /** Records addressed to a client: `[clientId, taskId, record text]`, in the order stored. */
  readonly changes: Array<[to: string, id: string, text: string]>;
}

/** Below PostgreSQL's limit of 8000 bytes, with room for the envelope. */
const MAX_PAYLOAD_BYTES = 7_800;

/** Builds the payloads of one store's notices, each under the payload limit. */
export class NoticeBuilder {
  private readonly payloads: string[] = [];
  private current: ResultNotice;
  private size: number;

  constructor(private readonly from: string) {
    this.current = this.empty();
    this.size = this.envelopeBytes();
  }

  /** A task that reached a ready state. */
  addReady(id: string): void {
    this.add(jsonBytes(id) + 1, (notice) => notice.ids.push(id));
  }

  /** A record addressed to client `to`; one too large for a notice is announced by id, to be read. */
  addChange(to: string, id: string, text: string, ready: boolean): void {
    const change: [string, string, string] = [to, id, text];
    const bytes = jsonBytes(change) + 1;
    if (this.envelopeBytes() + bytes > MAX_PAYLOAD_BYTES) {
      if (!ready) this.addReady(id);
      return;
    }
    this.add(bytes, (notice) => notice.changes.push(change));
  }

  /** The payloads, in order (none when there is nothing to say). */
  finish(): string[] {
    if (this.current.ids.length > 0 || this.current.changes.length > 0)
      this.payloads.push(JSON.stringify(this.current));
    this.current = this.empty();
    return this.payloads;
  }

  private add(bytes: number, put: (notice: ResultNotice) => void): void {
    const started = this.current.ids.length > 0 || this.current.changes.length > 0;
    if (started && this.size + bytes > MAX_PAYLOAD_BYTES) {
      this.payloads.push(JSON.stringify(this.current));
      this.current = this.empty();
      this.size = this.envelopeBytes();
    }
    put(this.current);
    this.size += bytes;
  }

  private empty(): ResultNotice {
    return { from: this.from, ids: [], changes: [] };
  }

  private envelopeBytes(): number {
    return jsonBytes(this.empty());
  }
}

/** Reads a payload; anything else on the channel (sent by hand) reads as an empty notice. */
export function parseNotice(payload: string): ResultNotice {
  try {
    const value = JSON.parse(payload) as Partial<ResultNotice>;
    return {
      from: typeof value.from === 'string' ? value.from : '',
      ids: Array.isArray(value.ids) ? value.ids.filter((id) => typeof id === 'string') : [],
      changes: Array.isArray(value.changes) ? value.changes.filter(isChange) : [],
    };
  } catch {
    return { from: '', ids: [], changes: [] };
  }
}

function isChange(value: unknown): value is [string, string, string] {
  return Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string');
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
