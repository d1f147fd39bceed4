/**
 * Workflow progress across crashes, step by step: a worker that dies between storing a step's
 * result and acking it leaves the step to run again. These tests replay such runs against the
 * memory transports, calling the progress functions as a worker does after each outcome.
 */
import { chain, chord, type CanvasNode, type TaskState } from '@celeriac/core';
import {
  continueWorkflow,
  failWorkflow,
  freeze,
  planLaunch,
  runtimeOf,
  type WorkflowContext,
  type TaskMessage,
} from '@celeriac/core/internal';
import { Celeriac } from 'celeriac';

const TTL = 60_000;

describe('workflow progress when steps run again', () => {
  let app: Celeriac;
  let context: WorkflowContext;
  beforeEach(() => {
    app = new Celeriac({ broker: 'memory://' });
    context = { app: runtimeOf(app), store: (entries) => app.backend.store(entries), ttlOf: () => TTL };
  });
  afterEach(() => app.close());

  function tasks() {
    const add = app.task('add', (a: number, b: number) => a + b);
    const sum = app.task('sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
    return { add, sum };
  }

  /** The messages a workflow starts with, and its frozen tree. */
  function start(node: CanvasNode): { node: CanvasNode; messages: TaskMessage[] } {
    const frozen = freeze(node);
    const messages = planLaunch(frozen, []).map((step) =>
      runtimeOf(app).buildMessage(step.node.task, step.args, step.node.options, { workflow: step.workflow }),
    );
    return { node: frozen, messages };
  }

  function store(id: string, state: TaskState, result?: unknown): Promise<void> {
    return app.backend.store([{ record: { id, state, result, date: Date.now() }, ttl: TTL }]);
  }

  function bodyId(node: CanvasNode): string {
    if (node.kind !== 'chain' || node.steps[1]?.kind !== 'task') throw new Error('not a chord');
    return node.steps[1].options.taskId as string;
  }

  it('a chord member re-run as the group completes keeps its SUCCESS; the body starts once', async () => {
    const { add, sum } = tasks();
    const { node, messages } = start(chord([add.s(1, 1), add.s(2, 2)], sum.s()).toNode());
    const [first, second] = messages as [TaskMessage, TaskMessage];
    await store(first.id, 'SUCCESS', 2);
    await continueWorkflow(context, first, 2);
    // Its worker died before the ack and the re-run has begun: its STARTED cannot undo the SUCCESS.
    await store(first.id, 'STARTED');
    expect(await app.backend.get(first.id)).toMatchObject({ state: 'SUCCESS', result: 2 });
    await store(second.id, 'SUCCESS', 4);
    await continueWorkflow(context, second, 4);
    expect(await app.backend.get(bodyId(node))).toBeUndefined();
    expect((await app.broker.stats('default')).ready).toBe(1); // the body, with both results
    // The re-run ends: the body is not sent again.
    await store(first.id, 'SUCCESS', 2);
    await continueWorkflow(context, first, 2);
    expect((await app.broker.stats('default')).ready).toBe(1);
    const [body] = await app.broker.reserve(['default'], 10);
    expect(body?.id).toBe(bodyId(node));
  });

  it('a chord member failing on a re-run after the body ran leaves the body as it is', async () => {
    const { add, sum } = tasks();
    const { node, messages } = start(chord([add.s(1, 1), add.s(2, 2)], sum.s()).toNode());
    for (const [message, value] of [
      [messages[0], 2],
      [messages[1], 4],
    ] as Array<[TaskMessage, number]>) {
      await store(message.id, 'SUCCESS', value);
      await continueWorkflow(context, message, value);
    }
    await store(bodyId(node), 'SUCCESS', 6);
    await failWorkflow(context, messages[0] as TaskMessage, {
      state: 'FAILURE',
      error: { name: 'Error', message: 'not again' },
    });
    expect(await app.backend.get(bodyId(node))).toMatchObject({ state: 'SUCCESS', result: 6 });
  });

  it('a chain step failing on a re-run leaves the rest of the chain alone once its first run started it', async () => {
    const { add } = tasks();
    const { node, messages } = start(chain(add.s(1, 1), add.s(2), add.s(3)).toNode());
    if (node.kind !== 'chain') throw new Error('not a chain');
    const [second, third] = node.steps
      .slice(1)
      .map((step) => (step.kind === 'task' ? (step.options.taskId as string) : ''));
    const first = messages[0] as TaskMessage;
    await store(first.id, 'SUCCESS', 2);
    await continueWorkflow(context, first, 2);
    await store(second as string, 'SUCCESS', 4); // the next step ran meanwhile
    await failWorkflow(context, first, { state: 'FAILURE', error: { name: 'Error', message: 'not again' } });
    expect(await app.backend.get(second as string)).toMatchObject({ state: 'SUCCESS', result: 4 });
    // The chain went on from its first run: the step after it is not marked failed either.
    expect(await app.backend.get(third as string)).toBeUndefined();
  });
});
