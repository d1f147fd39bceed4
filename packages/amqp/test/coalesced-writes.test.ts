import type { Socket } from 'node:net';
import { connect, type ChannelModel } from 'amqplib';
import { RABBITMQ_BASE_URL } from '@celeriac/test-support';
import { AmqpConnection } from '../src/connection';

/** Counts the socket writes (each a system call) under `model`'s connection. */
function countWrites(model: ChannelModel): { writes: number } {
  const socket = (model.connection as unknown as { stream: Socket }).stream;
  const counter = { writes: 0 };
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method] as (...args: unknown[]) => void;
    socket[method] = function counted(this: Socket, ...args: unknown[]) {
      counter.writes += 1;
      return original.apply(this, args);
    } as never;
  }
  return counter;
}

describe("amqplib's frames, written a pass at a time", () => {
  let close: () => Promise<void>;
  afterEach(() => close());

  /**
   * Publishes `count` messages in one tick to an exclusive queue (gone with the connection), then
   * reads them back; on Celeriac's connection, or on amqplib's own.
   */
  async function publishInOneTick(count: number, on: 'celeriac' | 'amqplib') {
    let model: ChannelModel;
    if (on === 'celeriac') {
      const connection = new AmqpConnection([RABBITMQ_BASE_URL], 'the test node');
      model = await connection.open();
      close = () => connection.close();
    } else {
      model = await connect(RABBITMQ_BASE_URL);
      close = () => model.close();
    }
    const channel = await model.createConfirmChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    const counter = countWrites(model);
    for (let i = 0; i < count; i += 1) channel.sendToQueue(queue, Buffer.from(String(i)));
    await channel.waitForConfirms();
    const writes = counter.writes;
    const bodies: string[] = [];
    await new Promise<void>((resolve) => {
      void channel.consume(
        queue,
        (message) => {
          bodies.push(message!.content.toString());
          if (bodies.length === count) resolve();
        },
        { noAck: true },
      );
    });
    return { writes, bodies };
  }

  it("Celeriac's connection sends what a tick published in a few writes, not one a message, in order", async () => {
    const { writes, bodies } = await publishInOneTick(200, 'celeriac');
    // 200 small messages fill the socket's buffer about once: a write, a 'drain', another write.
    expect(writes).toBeLessThanOrEqual(5);
    expect(bodies).toEqual(Array.from({ length: 200 }, (_, i) => String(i)));
  });

  it("amqplib's own connection writes each message on its own (what the coalescing saves)", async () => {
    const { writes } = await publishInOneTick(200, 'amqplib');
    expect(writes).toBeGreaterThanOrEqual(200);
  });
});
