/**
 * An ACL user of a test's own, on every server of the tests' topology (each Redis keeps its own
 * users): for what a user's rules allow, and to cut the connections of one app, and only those,
 * while other suites share the servers.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisUrlAs, topologyServers } from './topology-servers';

/** A test's ACL user; `remove()` it when the test is done (after closing the apps that use it). */
export class TestAclUser {
  /** Its name, unique to the test run. */
  readonly name = `celeriac-test-${randomBytes(4).toString('hex')}`;
  /** Its password, for a `>` rule: `>${user.password}`. */
  readonly password = 'pass';
  /** The tests' Redis URL, connecting as this user. */
  readonly url = redisUrlAs(this.name, this.password);
  /** The default user on each server, which manages this one. */
  private readonly servers: Redis[] = topologyServers();

  /** Sets ACL rules of the user (`ACL SETUSER <name> ...rules`) on every server. */
  async set(...rules: string[]): Promise<void> {
    await Promise.all(this.servers.map((server) => server.acl('SETUSER', this.name, ...rules)));
  }

  /** Closes every connection of the user on every server; resolves with how many. */
  async killConnections(): Promise<number> {
    const killed = await Promise.all(this.servers.map((server) => server.client('KILL', 'USER', this.name)));
    return killed.reduce<number>((sum, count) => sum + Number(count), 0);
  }

  /** Deletes the user on every server and closes the admin connections. */
  async remove(): Promise<void> {
    try {
      await Promise.all(this.servers.map((server) => server.acl('DELUSER', this.name)));
    } finally {
      await Promise.all(this.servers.map((server) => server.quit()));
    }
  }
}
