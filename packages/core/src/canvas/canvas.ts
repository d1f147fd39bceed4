/**
 * The workflow primitives: `chain` (each result feeds the next step), `group` (parallel, results in
 * order) and `chord` (a group whose list of results feeds a callback).
 */
import type { AsyncResult } from '../async-result';
import { CeleriacError } from '../errors';
import type { GroupResult } from './group-result';
import {
  startCanvas,
  type CanvasApplyOptions,
  type CanvasSender,
  type Composable,
  type HandleOf,
  type ValueOf,
} from './composable';
import type { CanvasNode } from './nodes';

/** Base of chain, group and chord: started with `applyAsync()`, plain data with `toJSON()`. */
abstract class Workflow<R, H> implements Composable<R, H> {
  declare readonly '~types'?: { value: R; handle: H };

  constructor(readonly sender: CanvasSender) {}

  /** The workflow as plain data. */
  abstract toNode(): CanvasNode;

  /**
   * Starts the workflow; `parentArgs` go before the first steps' own arguments. With
   * `options.transaction`, its first steps are stored through your open transaction.
   */
  applyAsync(parentArgs: readonly unknown[] = [], options: CanvasApplyOptions = {}): H {
    return startCanvas<H>(this, parentArgs, options);
  }

  /** Starts the workflow with these leading arguments. */
  delay(...parentArgs: unknown[]): H {
    return this.applyAsync(parentArgs);
  }

  /** The plain data, so `JSON.stringify(workflow)` sees data only. */
  toJSON(): CanvasNode {
    return this.toNode();
  }
}

/** Steps run one after another; each result is the next step's first argument (unless immutable). */
export class Chain<R = unknown, H = AsyncResult<R>> extends Workflow<R, H> {
  constructor(
    sender: CanvasSender,
    /** The steps, in order. */
    readonly steps: readonly Composable[],
    private readonly errbacks: readonly Composable[] = [],
  ) {
    super(sender);
  }

  /**
   * A copy whose every step calls `errback` with `(taskId, error)` when it fails for good (the
   * failed step stops the chain, so it runs once per failure).
   */
  onError(errback: Composable): Chain<R, H> {
    return new Chain<R, H>(this.sender, this.steps, [...this.errbacks, errback]);
  }

  toNode(): CanvasNode {
    const node: CanvasNode = { kind: 'chain', steps: this.steps.map((step) => step.toNode()) };
    return this.errbacks.length === 0
      ? node
      : withErrbacks(
          node,
          this.errbacks.map((errback) => errback.toNode()),
        );
  }
}

/** Members run in parallel; the result is the list of their values, in order. */
export class Group<T extends readonly unknown[] = unknown[]> extends Workflow<T, GroupResult<T>> {
  constructor(
    sender: CanvasSender,
    /** The members, in order. */
    readonly members: readonly Composable[],
  ) {
    super(sender);
  }

  toNode(): CanvasNode {
    return { kind: 'group', members: this.members.map((member) => member.toNode()) };
  }
}

/** A group whose list of results is passed to a callback once every member succeeded. */
export class Chord<R = unknown, H = AsyncResult<R>> extends Workflow<R, H> {
  constructor(
    sender: CanvasSender,
    readonly header: Group,
    readonly body: Composable,
  ) {
    super(sender);
  }

  toNode(): CanvasNode {
    return { kind: 'chain', steps: [this.header.toNode(), this.body.toNode()] };
  }
}

type Last<S extends readonly unknown[]> = S extends readonly [...unknown[], infer L] ? L : S[number];
type Values<S extends readonly unknown[]> = { -readonly [K in keyof S]: ValueOf<S[K]> };

/**
 * Runs steps one after another, each result feeding the next: `chain(add.s(2, 2), add.s(4))`.
 * `applyAsync()` returns the last step's handle; walk `parent` back to the first.
 * @throws CeleriacError `CELERIAC_INVALID_CANVAS` without steps.
 */
export function chain<S extends readonly Composable[]>(...steps: S): Chain<ValueOf<Last<S>>, HandleOf<Last<S>>> {
  return new Chain(senderOf(steps, 'chain'), steps);
}

/**
 * Runs members in parallel: `group([add.s(1, 1), add.s(2, 2)])`; `applyAsync()` returns a
 * GroupResult, a promise of the values in order.
 * @throws CeleriacError `CELERIAC_INVALID_CANVAS` without members.
 */
export function group<const S extends readonly Composable[]>(members: S): Group<Values<S>> {
  if (!Array.isArray(members))
    throw new CeleriacError(
      'CELERIAC_INVALID_CANVAS',
      'group() takes an array of signatures, e.g. group([add.s(1, 1), add.s(2, 2)]).',
    );
  return new Group<Values<S>>(senderOf(members, 'group'), members);
}

/**
 * Runs the header in parallel, then `body` with the list of their values:
 * `chord([add.s(1, 1), add.s(2, 2)], sum.s())`. A failed header task fails the chord with a
 * ChordError and the body does not run.
 */
export function chord<const S extends readonly Composable[], B extends Composable>(
  header: S | Group,
  body: B,
): Chord<ValueOf<B>, HandleOf<B>> {
  const members = header instanceof Group ? header : group(header);
  return new Chord(members.sender, members, body);
}

function senderOf(pieces: readonly Composable[], what: string): CanvasSender {
  const first = pieces[0];
  if (!first)
    throw new CeleriacError(
      'CELERIAC_INVALID_CANVAS',
      `${what}() needs at least one signature, e.g. ` +
        `${what === 'chain' ? 'chain(add.s(2, 2), add.s(4))' : 'group([add.s(1, 1)])'}.`,
    );
  return first.sender;
}

/** Adds errbacks to every task of a tree (not to the callbacks themselves). */
function withErrbacks(node: CanvasNode, errbacks: CanvasNode[]): CanvasNode {
  switch (node.kind) {
    case 'task':
      return { ...node, linkError: [...(node.linkError ?? []), ...errbacks] };
    case 'group':
      return { ...node, members: node.members.map((member) => withErrbacks(member, errbacks)) };
    case 'chain':
      return { ...node, steps: node.steps.map((step) => withErrbacks(step, errbacks)) };
  }
}
