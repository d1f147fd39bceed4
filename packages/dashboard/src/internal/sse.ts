/**
 * The live feed of a browser: server-sent events. `overview` messages carry the workers, queues and
 * charts; `events` messages carry new events of the log. A comment line every 15 s keeps proxies
 * from closing an idle connection. The browser's EventSource reconnects by itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveFeed } from './live-feed';
import type { LiveStreams } from './live-streams';

/** The interval of keep-alive comments. */
const KEEP_ALIVE_MS = 15_000;

const HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx buffers responses unless told not to; a buffered event stream is not live.
  'X-Accel-Buffering': 'no',
};

/**
 * Turns the response into an event stream fed by `feed` until the browser goes away or `streams`
 * ends it (a 503 when `streams` has no slot for it). A HEAD gets the headers alone.
 */
export function openLiveStream(req: IncomingMessage, res: ServerResponse, feed: LiveFeed, streams: LiveStreams): void {
  if (req.method === 'HEAD') {
    res.writeHead(200, HEADERS);
    res.end();
    return;
  }
  streams.admit(req, res);
  res.writeHead(200, { ...HEADERS, Connection: 'keep-alive' });
  res.write('retry: 2000\n\n');
  // Once ended (its lifetime is over, the dashboard closes), nothing more is written before it closes.
  const send = (text: string) => void (res.writableEnded || res.write(text));
  const unsubscribe = feed.subscribe((name, data) => send(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`));
  const keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const end = () => {
    clearInterval(keepAlive);
    unsubscribe();
  };
  req.once('close', end);
  res.once('close', end);
}
