/**
 * The dashboard's one HTML page. It names the ES modules through an import map (allowed by a
 * per-response nonce in the Content-Security-Policy) and hands the page its CSRF token and whether
 * actions are allowed, in meta tags. All its links are relative, so it works under any path prefix.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { sendText } from './static-files';

/** What the page is told. */
export interface PageSettings {
  readonly title: string;
  readonly csrfToken: string;
  readonly readOnly: boolean;
}

/** Answers with the page. */
export function servePage(req: IncomingMessage, res: ServerResponse, settings: PageSettings): void {
  const nonce = randomBytes(16).toString('base64');
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'self'",
      `script-src 'self' 'nonce-${nonce}'`,
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ].join('; '),
  );
  const body = Buffer.from(html(settings, nonce));
  sendText(req, res, 'text/html; charset=utf-8', { body, gzipped: gzipSync(body) });
}

function html(settings: PageSettings, nonce: string): string {
  const title = escapeHtml(settings.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="celeriac-csrf" content="${escapeHtml(settings.csrfToken)}">
<meta name="celeriac-read-only" content="${settings.readOnly ? 'true' : 'false'}">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/style.css">
<script type="importmap" nonce="${nonce}">
{ "imports": { "preact": "./vendor/preact.mjs", "preact/hooks": "./vendor/hooks.mjs", "htm": "./vendor/htm.mjs" } }
</script>
<script type="module" src="assets/app.js"></script>
</head>
<body>
<div id="root"><p class="loading">${title} is loading…</p></div>
<noscript>The Celeriac dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );
}
