/** Reads the dashboard's live feed (server-sent events) as a browser's EventSource would. */

/** One server-sent message: its event name and its JSON data. */
export interface LiveMessage {
  readonly name: string;
  readonly data: unknown;
}

/**
 * Opens the event stream at `url` and reads its messages until `until` accepts one (it sees each in
 * turn, with every message so far); then closes it and returns them all. Throws if the stream is
 * not an event stream or ends first.
 */
export async function readLiveMessages(
  url: string,
  until: (message: LiveMessage, messages: readonly LiveMessage[]) => boolean,
  headers: Record<string, string> = {},
): Promise<LiveMessage[]> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) throw new Error(`Not an event stream (${response.status} ${type}).`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: LiveMessage[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('The event stream ended early.');
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (name === undefined || data === undefined) continue;
        const message = { name, data: JSON.parse(data) as unknown };
        messages.push(message);
        if (until(message, messages)) return messages;
      }
    }
  } finally {
    controller.abort();
  }
}
