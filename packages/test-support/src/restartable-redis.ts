/**
 * A Redis of one test's own, on a free loopback port, that the test can kill -9 and start again on
 * the same port from its append-only file (fsync on every write, so nothing acknowledged is lost):
 * broker restarts without touching the Redis other suites share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { answers } from './on-port';

const HOST = '127.0.0.1';

/** One redis-server process at a time on a fixed port and data folder. */
export class RestartableRedis {
  private server: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    /** The port it listens on, the same across restarts. */
    readonly port: number,
    private readonly folder: string,
  ) {}

  /** Starts a Redis on a free port, with an append-only file in a temp folder; resolves once it answers. */
  static async start(): Promise<RestartableRedis> {
    const redis = new RestartableRedis(await freePort(), mkdtempSync(join(tmpdir(), 'celeriac-restartable-')));
    await redis.restart();
    return redis;
  }

  /** Its URL. */
  get url(): string {
    return `redis://${HOST}:${this.port}/0`;
  }

  /** Kills the server with SIGKILL; resolves once it is gone. */
  async kill(): Promise<void> {
    this.server?.kill('SIGKILL');
    await this.exited;
    this.server = undefined;
  }

  /** Starts the server again (after a kill) from its append-only file; resolves once it answers. */
  async restart(): Promise<void> {
    const args = [
      ...['--port', String(this.port), '--bind', HOST, '--dir', this.folder, '--save', ''],
      ...['--appendonly', 'yes', '--appendfsync', 'always', '--logfile', join(this.folder, 'redis.log')],
    ];
    const server = spawn('redis-server', args, { stdio: 'ignore' });
    this.server = server;
    this.exited = new Promise((resolve) => server.once('exit', () => resolve()));
    const deadline = Date.now() + 20_000;
    while (!(await answers(this.port))) {
      if (server.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited (log in ${this.folder})`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Kills the server and removes its folder. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.folder, { recursive: true, force: true });
  }
}
