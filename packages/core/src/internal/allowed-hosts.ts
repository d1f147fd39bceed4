/**
 * Which `Host` an HTTP server of ours answers, and which `Origin` may POST to it: the defence
 * against DNS rebinding, shared by the dashboard and the worker's metrics endpoint. A page of another
 * site that rebinds its own name to 127.0.0.1 reaches the server as same-origin, but its requests
 * still carry that name in `Host` (and `Origin`): only names this machine alone can mean, IP
 * addresses, and the names the operator allowed are answered.
 */
import { isIP } from 'node:net';
import { CeleriacError } from '../errors';

/** The hosts a server answers besides loopback names and IP addresses, parsed once. */
export interface AllowedHosts {
  /** Exact names (lower case), any port. */
  readonly names: ReadonlySet<string>;
  /** Exact `name:port` pairs (lower case). */
  readonly withPort: ReadonlySet<string>;
  /** Suffixes from `.example.com` entries: the name itself and every name under it. */
  readonly domains: readonly string[];
}

/** A `Host` or `Origin` split into its name (lower case, IPv6 in brackets) and port (`''` when none). */
interface HostParts {
  readonly name: string;
  readonly port: string;
}

/**
 * Parses the operator's list: `name`, `name:port`, `.example.com` (it and every name under it), or
 * a URL (`https://ops.example.com/celeriac/`: its host). Throws `CELERIAC_INVALID_OPTION` naming
 * `option` for an entry that is none of these.
 */
export function parseAllowedHosts(entries: readonly string[], option: string): AllowedHosts {
  const names = new Set<string>();
  const withPort = new Set<string>();
  const domains: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string')
      throw new CeleriacError('CELERIAC_INVALID_OPTION', `${option} takes host names, got ${JSON.stringify(entry)}.`);
    const text = entry.trim();
    if (text.startsWith('.') && text.length > 1) {
      const parts = hostParts(text.slice(1));
      if (parts?.port === '') {
        domains.push(parts.name);
        continue;
      }
    } else {
      const parts = hostParts(text.includes('://') ? hostOfUrl(text) : text);
      if (parts) {
        if (parts.port === '') names.add(parts.name);
        else withPort.add(`${parts.name}:${parts.port}`);
        continue;
      }
    }
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `${option}: ${JSON.stringify(entry)} is not a host name. Give a name ("ops.example.com"), a name and port ` +
        '("ops.example.com:8443"), ".example.com" for a domain and its subdomains, or a URL.',
    );
  }
  return { names, withPort, domains };
}

/**
 * True when a request with this `Host` header may be answered: a loopback name (`localhost`,
 * `*.localhost`), an IP address (a rebound page cannot name one: its `Host` is its own name), or a
 * host in `allowed`. No `Host` (HTTP/1.0) is refused: a rebound page would send its own.
 */
export function hostAllowed(host: string | undefined, allowed: AllowedHosts): boolean {
  const parts = host === undefined ? undefined : hostParts(host);
  if (!parts) return false;
  const { name, port } = parts;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name.replace(/^\[|\]$/g, '')) !== 0) return true;
  if (allowed.names.has(name) || allowed.withPort.has(`${name}:${port}`)) return true;
  return allowed.domains.some((domain) => name === domain || name.endsWith(`.${domain}`));
}

/**
 * Why a state-changing request (a POST) must be refused, or undefined when it may go on: a browser
 * that says it comes from another origin (`Sec-Fetch-Site`), or an `Origin` whose host would not be
 * answered. Requests without either header (scripts, curl) are left to the other checks.
 */
export function originProblem(
  headers: { readonly origin?: string | undefined; readonly 'sec-fetch-site'?: string | string[] | undefined },
  allowed: AllowedHosts,
): string | undefined {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `the browser says this request comes from another site (Sec-Fetch-Site: ${String(site)})`;
  const { origin } = headers;
  if (origin === undefined) return undefined;
  const host = origin === 'null' ? undefined : hostOfUrl(origin);
  if (host === undefined || !hostAllowed(host, allowed)) return `it comes from the page of ${origin}`;
  return undefined;
}

/** The `host[:port]` of a URL, or undefined when it is not one with a host. */
function hostOfUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.host === '' ? undefined : url.host;
  } catch {
    return undefined;
  }
}

/** Splits `name[:port]` (IPv6 in brackets); undefined when it is anything else (a path, user info, spaces). */
function hostParts(text: string | undefined): HostParts | undefined {
  if (text === undefined || text === '' || /[\s/\\?#@]/.test(text)) return undefined;
  try {
    const url = new URL(`http://${text}`);
    const name = url.hostname.replace(/\.$/, '');
    // The URL drops a default port (80): `name:80` then stands for the name on any port.
    return name === '' ? undefined : { name, port: url.port };
  } catch {
    return undefined;
  }
}
