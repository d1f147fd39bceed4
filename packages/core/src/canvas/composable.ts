/** What every workflow piece (signature, chain, group, chord) shares, and how it is started. */
import { AsyncResult, type ParentResult, type ResultSource } from '../async-result';
import { freeze } from './freeze';
import { GroupResult, type MemberHandles } from './group-result';
import { memberId, type CanvasNode, type GroupNode } from './nodes';
import type { TransactionClient } from '../transaction-client';

/** Options of a workflow's `applyAsync`. */
export interface CanvasApplyOptions {
  /** Publish the first steps through a client of your open transaction (see `ApplyOptions.transaction`). */
  transaction?: TransactionClient;
}

/** What starting a workflow needs from the app. */
export interface CanvasSender extends ResultSource {
  /** Publishes the first tasks of a frozen workflow; resolves once the broker accepted them. */
  launchCanvas(node: CanvasNode, parentArgs: readonly unknown[], options?: CanvasApplyOptions): Promise<void>;
}

/**
 * A step of a workflow: a signature, chain, group or chord. `R` is the value it produces and `H`
 * the handle `applyAsync()` returns (an AsyncResult, or a GroupResult for a group).
 */
export interface Composable<R = unknown, H = unknown> {
  /** The app that sends it. */
  readonly sender: CanvasSender;
  /** The workflow as plain data. */
  toNode(): CanvasNode;
  /** Type-level only (never set): the value and handle types. */
  readonly '~types'?: { value: R; handle: H };
}

/** The value a step produces. */
export type ValueOf<S> = S extends { readonly '~types'?: { value: infer R } } ? R : unknown;
/** The handle a step's `applyAsync()` returns. */
export type HandleOf<S> = S extends { readonly '~types'?: { handle: infer H } } ? H : unknown;

/** Freezes and starts a workflow; returns the handle of its result (the last step's). */
export function startCanvas<H>(
  piece: Composable<unknown, H>,
  parentArgs: readonly unknown[],
  options: CanvasApplyOptions = {},
): H {
  const node = freeze(piece.toNode());
  const sent = piece.sender.launchCanvas(node, parentArgs, options);
  return handleOf(piece.sender, node, sent, undefined) as H;
}

/** Handles on a frozen workflow's results, each linked to the step before it. */
export function handleOf(
  source: ResultSource,
  node: CanvasNode,
  sent: Promise<void>,
  parent: ParentResult | undefined,
): AsyncResult<unknown> | GroupResult {
  switch (node.kind) {
    case 'task':
      return new AsyncResult(source, node.options.taskId as string, {
        sent,
        taskName: node.task,
        sentHere: true,
        parent,
      });
    case 'group':
      return new GroupResult(source, node.id as string, memberHandles(source, node, sent, parent), {
        sent,
        parent,
        sentHere: true,
      });
    case 'chain': {
      let handle: AsyncResult<unknown> | GroupResult | undefined;
      let previous = parent;
      for (const step of node.steps) {
        handle = handleOf(source, step, sent, previous);
        previous = handle;
      }
      return handle as AsyncResult<unknown> | GroupResult;
    }
  }
}

/**
 * A group's member handles: made on first use when every member is a task (all a handle needs is
 * its id and task name), else at once (a chain member's handle links to its earlier steps).
 */
function memberHandles(
  source: ResultSource,
  node: GroupNode,
  sent: Promise<void>,
  parent: ParentResult | undefined,
): MemberHandles | Array<AsyncResult<unknown>> {
  const { members } = node;
  if (!members.every((member) => member.kind === 'task'))
    return members.map((member) => handleOf(source, member, sent, parent) as AsyncResult<unknown>);
  const names = members.map((member) => (member.kind === 'task' ? member.task : undefined));
  const id = node.id as string;
  const sentAt = Date.now(); // a handle made later still tells when its task was sent
  return {
    size: names.length,
    taskName: (index) => names[index],
    handle: (index) =>
      new AsyncResult(source, memberId(id, index), { sent, taskName: names[index], sentHere: true, sentAt, parent }),
  };
}
