import { Codec, InvalidMessageError } from '@celeriac/core';
import { decodeMessage, encodeMessage, MESSAGE_VERSION, type TaskMessage } from '@celeriac/core/internal';

const codec = new Codec();

/** The wire form of a valid message with a workflow, as JSON to edit. */
function wire(): Record<string, unknown> {
  const message: TaskMessage = {
    version: MESSAGE_VERSION,
    id: 'task-1',
    task: 'math.add',
    args: [1, 2],
    queue: 'default',
    priority: 0,
    retries: 0,
    headers: { trace: 'abc' },
    publishedAt: 1_700_000_000_000,
    workflow: {
      then: [{ kind: 'task', task: 'math.add', args: [3], options: { taskId: 'step-2' }, immutable: false }],
      member: {
        group: 'g',
        index: 0,
        size: 2,
        body: { steps: [{ kind: 'task', task: 'math.sum', args: [], options: { taskId: 'body' }, immutable: false }] },
      },
      link: [
        {
          kind: 'group',
          id: 'cb',
          members: [
            {
              kind: 'chain',
              steps: [{ kind: 'task', task: 'log', args: [], options: { taskId: 'cb:0' }, immutable: true }],
            },
          ],
        },
      ],
    },
  };
  return JSON.parse(encodeMessage(codec, message)) as Record<string, unknown>;
}

/** The problem decodeMessage names for the wire message after `edit`. */
function problemOf(edit: (wire: Record<string, unknown>) => void): string {
  const edited = wire();
  edit(edited);
  try {
    decodeMessage(codec, JSON.stringify(edited));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidMessageError);
    expect(error).toMatchObject({ code: 'CELERIAC_INVALID_MESSAGE' });
    return (error as InvalidMessageError).problem;
  }
  throw new Error('the message decoded');
}

/** Sets the (plain JSON) workflow of a wire message, under its wire key `flow`. */
function wireWorkflow(value: unknown): (wire: Record<string, unknown>) => void {
  return (edited) => void (edited.flow = { json: value });
}

describe('the message shape check', () => {
  it('accepts a message with every field and a workflow', () => {
    expect(decodeMessage(codec, JSON.stringify(wire())).workflow?.then).toHaveLength(1);
  });

  it.each([
    [
      'then is a string, link a number',
      wireWorkflow({ then: 'x', link: 5 }),
      /^flow\.then must be a list of workflow nodes, not "x"/,
    ],
    ['a link is a number', wireWorkflow({ link: [5] }), /^flow\.link\[0\] must be a workflow node/],
    [
      'the limits have no task',
      (edited: Record<string, unknown>) => void (edited.limits = { rate: { limit: 1, per: 1000, burst: 1, key: 'k' } }),
      /^limits\.task must be a non-empty string, and is missing/,
    ],
    [
      'a concurrency limit is 0',
      (edited: Record<string, unknown>) => void (edited.limits = { task: 't', concurrency: { limit: 0, key: 't' } }),
      /^limits\.concurrency\.limit must be an integer >= 1, not 0/,
    ],
    [
      'a rate has no scope key',
      (edited: Record<string, unknown>) =>
        void (edited.limits = { task: 't', rate: { limit: 1, per: 1000, burst: 1 } }),
      /^limits\.rate\.key must be a non-empty string, and is missing/,
    ],
    ['a step is null', wireWorkflow({ then: [null] }), /^flow\.then\[0\] must be a workflow node/],
    [
      'the membership is empty',
      wireWorkflow({ member: {} }),
      /^flow\.member\.group must be a non-empty string, and is missing/,
    ],
    ['the workflow is not an object', wireWorkflow(7), /^flow must be an object, not 7/],
    [
      'the traceparent is not a W3C traceparent',
      (edited: Record<string, unknown>) => void (edited.headers = { traceparent: '00-abc-def-01' }),
      /^headers\.traceparent must be a W3C traceparent/,
    ],
    [
      'the workflow is not encoded',
      (edited: Record<string, unknown>) => void (edited.flow = 5),
      /^flow must be an encoded value/,
    ],
    [
      'a kind is unknown',
      wireWorkflow({ then: [{ kind: 'lambda' }] }),
      /^flow\.then\[0\]\.kind must be 'task', 'group' or 'chain', not "lambda"/,
    ],
    [
      'a step has no id',
      wireWorkflow({ then: [{ kind: 'task', task: 't', args: [], options: {}, immutable: false }] }),
      /^flow\.then\[0\]\.options\.taskId must be a non-empty string/,
    ],
    [
      'a step has callbacks as options',
      wireWorkflow({
        then: [{ kind: 'task', task: 't', args: [], options: { taskId: 'a', link: {} }, immutable: false }],
      }),
      /^flow\.then\[0\]\.options\.link must be absent/,
    ],
    [
      'a step depends on null',
      wireWorkflow({
        then: [{ kind: 'task', task: 't', args: [], options: { taskId: 'a', dependsOn: [null] }, immutable: false }],
      }),
      /options\.dependsOn must be a list of task ids/,
    ],
    [
      'a group is empty',
      wireWorkflow({ link: [{ kind: 'group', id: 'g', members: [] }] }),
      /^flow\.link\[0\]\.members must be a non-empty list/,
    ],
    [
      'a chain has no steps',
      wireWorkflow({ linkError: [{ kind: 'chain' }] }),
      /^flow\.linkError\[0\]\.steps must be a non-empty list/,
    ],
    [
      'a member index is past the size',
      wireWorkflow({ member: { group: 'g', index: 3, size: 2, body: { steps: [] } } }),
      /^flow\.member\.index must be an integer below the size/,
    ],
    [
      'a chord body has no steps',
      wireWorkflow({ member: { group: 'g', index: 0, size: 2, body: { steps: [] } } }),
      /^flow\.member\.body\.steps must be a non-empty list/,
    ],
    [
      'a nested errback is wrong',
      wireWorkflow({
        then: [{ kind: 'task', task: 't', args: [], options: { taskId: 'a' }, immutable: false, linkError: 'x' }],
      }),
      /^flow\.then\[0\]\.linkError must be a list/,
    ],
    [
      'headers hold a number',
      (edited: Record<string, unknown>) => void (edited.headers = { a: 1 }),
      /^headers must be an object of strings/,
    ],
    [
      'headers are missing',
      (edited: Record<string, unknown>) => void delete edited.headers,
      /^headers must be an object of strings, and is missing/,
    ],
    [
      'timeLimit is negative',
      (edited: Record<string, unknown>) => void (edited.timeLimit = -1),
      /^timeLimit must be a number of ms >= 0, not -1/,
    ],
    [
      'softTimeLimit is a string',
      (edited: Record<string, unknown>) => void (edited.softTimeLimit = '1s'),
      /^softTimeLimit must be a number/,
    ],
    ['expires is null', (edited: Record<string, unknown>) => void (edited.expires = null), /^expires must be a time/],
    ['eta is a string', (edited: Record<string, unknown>) => void (edited.eta = 'now'), /^eta must be a time/],
    [
      'retries is a fraction',
      (edited: Record<string, unknown>) => void (edited.retries = 0.5),
      /^retries must be an integer >= 0/,
    ],
    [
      'maxRetries is negative',
      (edited: Record<string, unknown>) => void (edited.maxRetries = -2),
      /^maxRetries must be an integer >= 0/,
    ],
    [
      'priority is 256',
      (edited: Record<string, unknown>) => void (edited.priority = 256),
      /^priority must be an integer from 0 to 255/,
    ],
    [
      'resultTtl is past what Redis keeps',
      (edited: Record<string, unknown>) => void (edited.resultTtl = 1e20),
      /^resultTtl must be a number of ms from 0 to/,
    ],
    [
      'dependsOn holds an empty id',
      (edited: Record<string, unknown>) => void (edited.dependsOn = ['']),
      /^dependsOn must be a list of task ids/,
    ],
    [
      'parentId is a number',
      (edited: Record<string, unknown>) => void (edited.parentId = 5),
      /^parentId must be a string/,
    ],
    ['the id is empty', (edited: Record<string, unknown>) => void (edited.id = ''), /^id must be a non-empty string/],
    [
      'the arguments are not a list',
      (edited: Record<string, unknown>) => void (edited.args = { json: 'x' }),
      /^args must be a list/,
    ],
    [
      'publishedAt is missing',
      (edited: Record<string, unknown>) => void delete edited.publishedAt,
      /^publishedAt must be a time/,
    ],
  ])('refuses a message where %s, naming the field', (_case, edit, problem) => {
    expect(problemOf(edit)).toMatch(problem);
  });

  it('refuses a workflow nested past its depth limit without overflowing the stack', () => {
    let node: unknown = { kind: 'task', task: 't', args: [], options: { taskId: 'leaf' }, immutable: false };
    for (let depth = 0; depth < 1_000; depth++) node = { kind: 'chain', steps: [node] };
    expect(problemOf(wireWorkflow({ then: [node] }))).toMatch(/must be nested at most \d+ deep/);
  });
});
