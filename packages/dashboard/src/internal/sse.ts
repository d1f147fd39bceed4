/**
 * The live feed of a browser: server-sent events. `overview` messages carry the workers, queues and
 * charts; `events` messages carry new events of the log. A comment line every 15 s keeps proxies
 * from closing an idle connection. The browser's EventSource reconnects by itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveFeed } from './live-feed';

/** The interval of keep-alive comments. */
const KEEP_ALIVE_MS = 15_000;

/** Turns the response into an event stream fed by `feed` until the browser goes away. */
export function openLiveStream(
  req: IncomingMessage,
  res: ServerResponse,
  feed: LiveFeed,
  streams: Set<ServerResponse>,
): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // nginx buffers responses unless told not to; a buffered event stream is not live.
    'X-Accel-Buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  streams.add(res);
  const unsubscribe = feed.subscribe((name, data) => {
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const end = () => {
    clearInterval(keepAlive);
    unsubscribe();
    streams.delete(res);
  };
  req.once('close', end);
  res.once('close', end);
}
