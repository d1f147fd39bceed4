/**
 * The dashboard inside a server of one's own, under `/ops/`: what an application that already runs
 * an HTTP server does instead of starting `celeriac dashboard`. Start a worker
 * (`npx celeriac worker -A dist/tasks.js`), then `node dist/dashboard.js` and open
 * http://127.0.0.1:3000/ops/. With OPS_PASSWORD set, the dashboard asks for the user `ops` and it.
 */
import { createServer } from 'node:http';
import { chain, chord, createDashboard } from 'celeriac';
import { add, app, ship, sum } from './tasks';

const PORT = Number(process.env.PORT ?? 3000);
const password = process.env.OPS_PASSWORD;

const dashboard = createDashboard(app, {
  title: 'Operations example',
  ...(password ? { basicAuth: { user: 'ops', password } } : {}),
});

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/ops' || url.startsWith('/ops/') || url.startsWith('/ops?')) {
    // The dashboard's links are relative: hand it the URL without the prefix, as a router does.
    if (url === '/ops' || url.startsWith('/ops?')) {
      res.writeHead(308, { Location: `/ops/${url.slice('/ops'.length)}` });
      return res.end();
    }
    req.url = url.slice('/ops'.length);
    return dashboard(req, res);
  }
  if (url === '/send') {
    // Something to watch: one task that succeeds and one that fails while the teapot is out of stock.
    add.delay(2, 3);
    ship.delay(`A-${Date.now()}`, 'teapot');
    res.writeHead(303, { Location: '/ops/' });
    return res.end();
  }
  if (url === '/workflow') {
    // A workflow to see drawn whole: ((1 + 2) + 3), then a chord adding 10 and 20 to it, summed, then + 100.
    const last = chain(add.s(1, 2), add.s(3), chord([add.s(10), add.s(20)], sum.s()), add.s(100)).applyAsync();
    res.writeHead(303, { Location: `/ops/#/tasks/${encodeURIComponent(last.id)}` });
    return res.end();
  }
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(
    '<p>The application. <a href="/send">Send two tasks</a> or <a href="/workflow">a workflow</a>, then watch them ' +
      'on <a href="/ops/">the dashboard</a>.</p>',
  );
});

server.listen(PORT, '127.0.0.1', () => console.log(`Open http://127.0.0.1:${PORT}/ops/ (Ctrl-C stops)`));

async function stop(): Promise<void> {
  await dashboard.close();
  await new Promise((closed) => server.close(closed));
  await app.close();
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
