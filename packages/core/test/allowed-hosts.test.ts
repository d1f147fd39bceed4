/**
 * The Host and Origin rules shared by the dashboard and the worker's metrics endpoint: loopback
 * names, IP addresses and the operator's hosts are answered; names a rebound page would send are
 * not, however they are dressed up.
 */
import { hostAllowed, originProblem, parseAllowedHosts } from '@celeriac/core/internal';

const none = parseAllowedHosts([], 'allowedHosts');

describe('hostAllowed', () => {
  it.each([
    'localhost',
    'localhost:5555',
    'LOCALHOST.',
    'app.localhost:80',
    '127.0.0.1:5555',
    '[::1]:5555',
    '10.0.0.5',
    '[fe80::1]',
  ])('answers %s', (host) => expect(hostAllowed(host, none)).toBe(true));

  it.each([
    undefined,
    '',
    'attacker.example',
    'attacker.example:5555',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    'user@127.0.0.1',
    '127.0.0.1/evil',
    'local host',
  ])('refuses %p', (host) => expect(hostAllowed(host, none)).toBe(false));

  it('answers the allowed names, names with a port, domains and the hosts of URLs', () => {
    const allowed = parseAllowedHosts(
      ['Ops.Example.com', 'grafana.internal:8443', '.corp.example', 'https://public.example.org/ops/'],
      'allowedHosts',
    );
    expect(hostAllowed('ops.example.com:1234', allowed)).toBe(true);
    expect(hostAllowed('grafana.internal:8443', allowed)).toBe(true);
    expect(hostAllowed('grafana.internal', allowed)).toBe(false);
    expect(hostAllowed('x.corp.example', allowed)).toBe(true);
    expect(hostAllowed('xcorp.example', allowed)).toBe(false);
    expect(hostAllowed('public.example.org', allowed)).toBe(true);
  });

  it('refuses entries that are not hosts, naming the option', () => {
    for (const entry of ['a/b', '', 'user@host', '.', 'ftp://'])
      expect(() => parseAllowedHosts([entry], 'Dashboard: allowedHosts')).toThrow(
        expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('allowedHosts') }),
      );
  });
});

describe('originProblem', () => {
  it('lets through requests of the same origin, and those without browser headers', () => {
    expect(originProblem({}, none)).toBeUndefined();
    expect(originProblem({ origin: 'http://127.0.0.1:5555', 'sec-fetch-site': 'same-origin' }, none)).toBeUndefined();
    expect(originProblem({ 'sec-fetch-site': 'none' }, none)).toBeUndefined();
  });

  it('names what is wrong with a request of another origin', () => {
    expect(originProblem({ origin: 'http://attacker.example' }, none)).toContain('http://attacker.example');
    expect(originProblem({ origin: 'null' }, none)).toContain('null');
    expect(originProblem({ 'sec-fetch-site': 'cross-site' }, none)).toContain('cross-site');
    expect(originProblem({ 'sec-fetch-site': 'same-site' }, none)).toContain('same-site');
  });
});
