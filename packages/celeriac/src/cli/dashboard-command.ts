/**
 * `celeriac dashboard`: serves the web dashboard of the `-A` app until interrupted. It binds
 * 127.0.0.1 unless told otherwise, and refuses another address without --basic-auth or --token
 * unless --insecure. Secrets can come from the environment, so they stay out of `ps`.
 */
import { createDashboard, type DashboardApp, type DashboardOptions } from '@celeriac/dashboard';
import { metricsHandler } from '@celeriac/worker';
import { Command, InvalidArgumentError } from 'commander';
import { onStopSignals } from './lifecycle';
import { loadAppOrExit } from './load';
import { createLogger } from './logger';
import { duration, repeated, tcpPort } from './parse';
import { redact } from './redact';
import { withApp } from './with-app';
import { appOption } from './app-option';

interface DashboardFlags {
  app: string;
  port: number;
  host: string;
  basicAuth?: { user: string; password: string };
  token?: string;
  readOnly?: boolean;
  insecure?: boolean;
  allowedHost?: string[];
  history: number;
  title?: string;
  jsonLogs?: boolean;
}

/** `celeriac dashboard`. */
export function dashboardCommand(): Command {
  return new Command('dashboard')
    .description(
      'Serve the web dashboard: workers, queues, tasks, failed tasks, dead letters and beat, live; ' +
        'with actions unless --read-only.',
    )
    .addOption(appOption())
    .option('--port <n>', 'the TCP port (0: any free port)', tcpPort, 5555)
    .option('--host <address>', 'the address to bind (127.0.0.1: this machine only)', '127.0.0.1')
    .option(
      '--basic-auth <user:password>',
      'require HTTP basic auth (or set CELERIAC_DASHBOARD_BASIC_AUTH)',
      basicAuth,
      fromEnv('CELERIAC_DASHBOARD_BASIC_AUTH', basicAuth),
    )
    .option(
      '--token <token>',
      'require this bearer token (or set CELERIAC_DASHBOARD_TOKEN); open the page once with ?token=<token>',
      fromEnv('CELERIAC_DASHBOARD_TOKEN', (value) => value),
    )
    .option('--read-only', 'show everything, change nothing (the server refuses every action)')
    .option('--insecure', 'allow a non-loopback --host without --basic-auth or --token')
    .option(
      '--allowed-host <name>',
      'also answer requests for this host name (repeatable): the public name behind a reverse proxy, ' +
        'or another name of this machine; loopback names and IP addresses are always answered',
      repeated,
    )
    .option('--history <duration>', 'how far back the task list and charts start', duration, 3_600_000)
    .option('--title <text>', 'the page title')
    .option('--json-logs', 'log JSON lines instead of pretty text')
    .action(async (flags: DashboardFlags) => {
      const logger = createLogger({ level: 'info', json: flags.jsonLogs === true, name: 'dashboard' });
      const app = (await loadAppOrExit(flags.app, logger)) as DashboardApp;
      return withApp(app, async () => {
        const options: DashboardOptions = {
          readOnly: flags.readOnly === true,
          history: flags.history,
          // Prometheus scrapes the deployment's queue and worker gauges here, behind the same auth.
          metrics: metricsHandler(app),
          ...(flags.basicAuth ? { basicAuth: flags.basicAuth } : {}),
          ...(flags.token !== undefined ? { token: flags.token } : {}),
          ...(flags.title !== undefined ? { title: flags.title } : {}),
          ...(flags.allowedHost !== undefined ? { allowedHosts: flags.allowedHost } : {}),
        };
        const dashboard = createDashboard(app, options);
        // Listened for before the address is logged: a signal sent as soon as that line is read stops it
        // cleanly. As worker and beat: under npm, npm's exit counts as SIGTERM; a second signal exits now.
        const stopped = new Promise<void>((resolve) => {
          onStopSignals(
            logger,
            (signal) => {
              logger.info({ signal }, `Received ${signal}: closing the dashboard`);
              resolve();
            },
            (signal) => {
              logger.warn({ signal }, `Received ${signal} again: exiting now`);
              process.exit(0);
            },
          );
        });
        const { url } = await dashboard.listen({ port: flags.port, host: flags.host, insecure: flags.insecure });
        logger.info(
          { url, broker: redact(app.options.broker), readOnly: options.readOnly, auth: authKind(options) },
          `Dashboard at ${url}`,
        );
        await stopped;
        await dashboard.close();
      });
    });
}

function basicAuth(value: string): { user: string; password: string } {
  const at = value.indexOf(':');
  if (at <= 0 || at === value.length - 1) throw new InvalidArgumentError('Expected user:password.');
  return { user: value.slice(0, at), password: value.slice(at + 1) };
}

/** The default of an option from an environment variable, parsed like the flag. */
function fromEnv<T>(name: string, parse: (value: string) => T): T | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : parse(value);
}

function authKind(options: DashboardOptions): string {
  if (options.basicAuth) return 'basic';
  return options.token !== undefined ? 'token' : 'none';
}
