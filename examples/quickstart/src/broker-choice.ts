/**
 * Picks the demo's broker: Redis when one answers at REDIS_URL and this celeriac supports it,
 * otherwise the in-process memory broker, with the reason for the choice.
 */
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { CeleriacError } from 'celeriac';
import { createDemoApp, type DemoApp } from './tasks';

/** The app the demo runs on, and why. */
export interface BrokerChoice {
  demo: DemoApp;
  /** The broker URL in use, without credentials. */
  broker: string;
  reason: string;
}

const PING_TIMEOUT_MS = 300;

/** Probes Redis, then builds the app on it, falling back to `memory://`. */
export async function chooseBroker(
  redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
): Promise<BrokerChoice> {
  const shown = withoutCredentials(redisUrl);
  const probe = await pingRedis(redisUrl, PING_TIMEOUT_MS);
  if (!probe.ok) {
    return { demo: createDemoApp('memory://'), broker: 'memory://', reason: `no Redis at ${shown}: ${probe.reason}` };
  }
  try {
    return { demo: createDemoApp(redisUrl), broker: shown, reason: `Redis answered PING at ${shown}` };
  } catch (error) {
    if (error instanceof CeleriacError && error.code === 'CELERIAC_UNSUPPORTED_URL') {
      return {
        demo: createDemoApp('memory://'),
        broker: 'memory://',
        reason: `Redis answers at ${shown}, but this build of celeriac has no Redis support yet (${error.code})`,
      };
    }
    throw error;
  }
}

/** Sends AUTH (when the URL has credentials) and PING over one connection; never throws. */
export function pingRedis(url: string, timeoutMs: number): Promise<{ ok: true } | { ok: false; reason: string }> {
  let target: URL;
  try {
    target = new URL(firstNode(url));
  } catch {
    return Promise.resolve({ ok: false, reason: 'REDIS_URL is not a URL' });
  }
  if (target.protocol !== 'redis:' && target.protocol !== 'rediss:') {
    return Promise.resolve({
      ok: false,
      reason: `unexpected scheme ${target.protocol} (use redis://, rediss:// or redis+cluster://)`,
    });
  }
  const host = target.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(target.port || 6379);
  const commands: string[][] = [];
  if (target.password) {
    const password = decodeURIComponent(target.password);
    commands.push(target.username ? ['AUTH', decodeURIComponent(target.username), password] : ['AUTH', password]);
  }
  commands.push(['PING']);

  return new Promise((resolve) => {
    const socket: Socket =
      target.protocol === 'rediss:'
        ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }) })
        : connectTcp({ host, port });
    let received = '';
    const finish = (outcome: { ok: true } | { ok: false; reason: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, reason: error.code ?? error.message }));
    socket.once(target.protocol === 'rediss:' ? 'secureConnect' : 'connect', () =>
      socket.write(commands.map(encodeCommand).join('')),
    );
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const replies = received.split('\r\n').filter((line) => line.startsWith('+') || line.startsWith('-'));
      const failed = replies.find((line) => line.startsWith('-'));
      if (failed) finish({ ok: false, reason: `Redis refused: ${failed.slice(1)}` });
      else if (replies.length >= commands.length) finish({ ok: true });
    });
  });
}

function encodeCommand(parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
}

/**
 * A Redis Cluster URL (`redis+cluster://h1:7000,h2:7001`) as a `redis://` URL of its first startup
 * node, which the probe pings; any other URL as it is.
 */
function firstNode(url: string): string {
  const cluster = /^(rediss?)\+cluster:(\/\/[^,/?#]*)[^/?#]*/i.exec(url);
  return cluster ? `${cluster[1]}:${cluster[2]}` : url;
}

function withoutCredentials(url: string): string {
  // A cluster URL's host list is not a WHATWG URL: drop its credentials by hand.
  if (/^rediss?\+cluster:/i.test(url)) return url.replace(/\/\/[^@/]*@/, '//');
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
