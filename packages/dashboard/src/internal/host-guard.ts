/**
 * The dashboard's defence against DNS rebinding: every request must name a host the dashboard
 * answers (`Host`), and every action must come from a page of one (`Origin`, `Sec-Fetch-Site`).
 * The rules are the ones the worker's metrics endpoint applies too (`@celeriac/core/internal`).
 */
import { hostAllowed, originProblem, parseAllowedHosts, type AllowedHosts } from '@celeriac/core/internal';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ALLOWED_HOSTS_OPTION } from '../options';
import { HttpError } from './http';

const HOW_TO_ALLOW =
  'Open the dashboard at localhost or an IP address, or allow this name with --allowed-host NAME ' +
  '(allowedHosts); behind a reverse proxy, allow its public host name (see docs/dashboard.md, Security).';

/** Checks the `Host` of requests and the `Origin` of actions. */
export class HostGuard {
  private hosts: AllowedHosts;

  constructor(private entries: readonly string[]) {
    this.hosts = parseAllowedHosts(entries, ALLOWED_HOSTS_OPTION);
  }

  /** Also answers `host`, the name `listen()` binds (an address needs nothing: addresses are answered). */
  allowListenHost(host: string): void {
    if (isIP(host) !== 0) return;
    this.entries = [...this.entries, host];
    this.hosts = parseAllowedHosts(this.entries, ALLOWED_HOSTS_OPTION);
  }

  /** Refuses (403) a request whose `Host` this dashboard does not answer. */
  checkHost(req: IncomingMessage): void {
    const { host } = req.headers;
    if (hostAllowed(host, this.hosts)) return;
    throw new HttpError(
      403,
      'CELERIAC_HOST_NOT_ALLOWED',
      `This dashboard does not answer the host ${JSON.stringify(host ?? '')}. ${HOW_TO_ALLOW}`,
    );
  }

  /** Refuses (403) an action sent from a page of another origin. */
  checkOrigin(req: IncomingMessage): void {
    const problem = originProblem(req.headers, this.hosts);
    if (problem === undefined) return;
    throw new HttpError(403, 'CELERIAC_CSRF', `Actions are refused here: ${problem}. ${HOW_TO_ALLOW}`);
  }
}
