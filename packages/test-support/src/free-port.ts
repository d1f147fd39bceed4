/** A loopback port for a server a test starts itself. */
import { createServer } from 'node:net';

/** A port nothing listens on now on `host` (the kernel's pick for an ephemeral listener, closed again). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
