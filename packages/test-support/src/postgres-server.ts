/**
 * A PostgreSQL server of one test's own (`initdb` into a temp folder, on a free loopback port), that
 * the test can stop, crash and start again without disturbing the machine's server other suites
 * share; stopped and removed afterwards. As root, it runs as the `postgres` user (the server refuses
 * to run as root).
 */
import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/** How a server stops: `fast` ends every session and checkpoints; `immediate` is a crash (WAL replay at start). */
export type PostgresStopMode = 'fast' | 'immediate';

/** What a test asks of its server. */
export interface PostgresServerOptions {
  /** Extra server settings (`max_connections: 300`), written to its postgresql.conf. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

/** The user the server's commands run as: ourselves, or `postgres` when we are root. */
interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** One test server; `start()` makes one. */
export class PostgresServer {
  private running = false;

  private constructor(
    /** The port it listens on, the same across restarts. */
    readonly port: number,
    private readonly folder: string,
    private readonly bin: string,
    private readonly user: RunAs,
  ) {}

  /** Initialises a cluster in a temp folder and starts it; resolves once it accepts connections. */
  static async start(options: PostgresServerOptions = {}): Promise<PostgresServer> {
    const folder = mkdtempSync(join(tmpdir(), 'celeriac-pg-'));
    const server = new PostgresServer(await freePort(), folder, await binFolder(), await runAs());
    try {
      mkdirSync(join(folder, 'socket'));
      for (const path of [folder, join(folder, 'socket')]) {
        if (server.user.uid !== undefined) chownSync(path, server.user.uid, server.user.gid as number);
      }
      await server.pg('initdb', ['-D', server.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
      const settings = {
        port: server.port,
        listen_addresses: "'127.0.0.1'",
        unix_socket_directories: `'${join(folder, 'socket')}'`,
        // Its data lives as long as the test: a crash of the server (not of the machine) loses nothing
        // written, and skipping fsync keeps a loaded machine's disk out of the test.
        fsync: 'off',
        ...options.settings,
      };
      appendFileSync(
        join(server.data, 'postgresql.conf'),
        Object.entries(settings)
          .map(([name, value]) => `${name} = ${value}\n`)
          .join(''),
      );
      await server.restart();
      return server;
    } catch (error) {
      await server.remove();
      throw error;
    }
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust auth). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Stops the server (`fast`: sessions ended, a checkpoint; `immediate`: as a crash would). */
  async halt(mode: PostgresStopMode): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.data, '-m', mode, '-w', 'stop']);
    this.running = false;
  }

  /** Starts the server (again) on its data and port; resolves once it accepts connections. */
  async restart(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.data, '-l', join(this.folder, 'server.log'), '-w', '-t', '60', 'start']);
    this.running = true;
  }

  /** Stops the server at once and removes its folder. */
  async remove(): Promise<void> {
    if (this.running) await this.halt('immediate').catch(() => undefined);
    rmSync(this.folder, { recursive: true, force: true });
  }

  private get data(): string {
    return join(this.folder, 'data');
  }

  private async pg(command: string, args: string[]): Promise<void> {
    await run(join(this.bin, command), args, { ...this.user, cwd: this.folder, timeout: 90_000 });
  }
}

/** Where the server's programs are: `CELERIAC_TEST_POSTGRES_BIN`, or what `pg_config --bindir` says. */
async function binFolder(): Promise<string> {
  const configured = process.env.CELERIAC_TEST_POSTGRES_BIN;
  if (configured) return configured;
  return (await run('pg_config', ['--bindir'])).stdout.trim();
}

/** As root, the server's commands run as the `postgres` user. */
async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim())),
  );
  return { uid, gid };
}
