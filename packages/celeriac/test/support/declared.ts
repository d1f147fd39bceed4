/**
 * Behaviour cases that need a broker capability: defined as they are where the suite's broker
 * declares it, and as a check that the lack is declared where it does not (RabbitMQ lacks some;
 * the broker conformance suite checks that an app refuses what needs them). Nothing is skipped.
 */
import { AMQP_CAPABILITIES } from '@celeriac/amqp';
import type { BrokerCapabilities } from '@celeriac/core';
import { testBroker } from '@celeriac/test-support';

/** The flags of the suite's broker that cases branch on (memory and Redis declare every one). */
function suiteCapabilities(): BrokerCapabilities | undefined {
  return testBroker() === 'rabbitmq' ? AMQP_CAPABILITIES : undefined;
}

/**
 * `it` where the suite's broker declares what `needs` asks; elsewhere a case of the same name
 * checking that the broker does declare the lack (`what` names it).
 */
export function itWhere(what: string, needs: (capabilities: BrokerCapabilities) => boolean): jest.It {
  const capabilities = suiteCapabilities();
  if (capabilities === undefined || needs(capabilities)) return it;
  const lacking = ((name: string) =>
    it(`${name} (needs ${what}: not declared by ${capabilities.transport})`, () => {
      expect(needs(capabilities)).toBe(false);
    })) as unknown as jest.It;
  return lacking;
}
