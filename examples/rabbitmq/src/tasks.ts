/** The example's app and tasks: RabbitMQ for the messages, Redis for results and shared state. */
import { Celeriac } from 'celeriac';

/** The app and its tasks. */
export function createApp(amqpUrl: string, redisUrl: string) {
  const prefix = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'example-rabbitmq';
  const app = new Celeriac({ broker: amqpUrl, backend: redisUrl, prefix });
  const add = app.task('math.add', (a: number, b: number) => a + b);
  const stamp = app.task('clock.stamp', (label: string) => `${label} ran at ${new Date().toISOString()}`);
  return { app, add, stamp };
}
