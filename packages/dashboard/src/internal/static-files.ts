/**
 * The page's files, served from the package: the UI (`ui/` next to `dist/`) and the ES modules of
 * Preact and htm from their installed packages. No CDN and no bundler: the browser loads them as
 * modules through an import map. Files are read once, gzipped once, and revalidated by ETag.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The UI folder of the package (the same from `src/internal` and `dist/internal`). */
export const UI_DIR = join(__dirname, '..', '..', 'ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The files a page may ask for, by the path it asks with. */
function sources(): Record<string, string> {
  const ui = readdirSync(UI_DIR).filter((name) => name.endsWith('.js') || name.endsWith('.css'));
  return {
    ...Object.fromEntries(ui.map((name) => [`assets/${name}`, join(UI_DIR, name)])),
    'vendor/preact.mjs': join(packageDir('preact'), 'dist', 'preact.mjs'),
    'vendor/hooks.mjs': join(packageDir('preact'), 'hooks', 'dist', 'hooks.mjs'),
    'vendor/htm.mjs': join(packageDir('htm'), 'dist', 'htm.mjs'),
  };
}

interface CachedFile {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
  readonly type: string;
}

/** Serves the UI's static files. */
export class StaticFiles {
  private readonly cache = new Map<string, CachedFile>();
  private readonly paths = sources();

  /** True when `path` names one of the files. */
  has(path: string): boolean {
    return Object.hasOwn(this.paths, path);
  }

  /** Answers with the file at `path` (which {@link has} accepted). */
  serve(path: string, req: IncomingMessage, res: ServerResponse): void {
    const file = this.load(path);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', file.etag);
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304);
      res.end();
      return;
    }
    sendText(req, res, file.type, file);
  }

  private load(path: string): CachedFile {
    let file = this.cache.get(path);
    if (!file) {
      const source = this.paths[path] as string;
      const body = readFileSync(source);
      const extension = source.slice(source.lastIndexOf('.'));
      file = {
        body,
        gzipped: gzipSync(body),
        etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
        type: TYPES[extension] ?? 'application/octet-stream',
      };
      this.cache.set(path, file);
    }
    return file;
  }
}

/** Sends a text body, gzipped when the client takes it. */
export function sendText(
  req: IncomingMessage,
  res: ServerResponse,
  type: string,
  file: { body: Buffer; gzipped: Buffer },
): void {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped : file.body;
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': body.length,
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The folder of an installed package, found from its entry point (their exports maps hide package.json). */
function packageDir(name: string): string {
  const entry = require.resolve(name);
  const marker = join('node_modules', name);
  const at = entry.lastIndexOf(marker);
  if (at < 0) throw new Error(`Cannot find the folder of the package ${name} (resolved to ${entry}).`);
  return entry.slice(0, at + marker.length);
}
