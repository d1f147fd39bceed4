/** Canvas: chains, groups, chords and callbacks. */
export { chain, Chain, chord, Chord, group, Group } from './canvas';
export { handleOf, startCanvas, type CanvasSender, type Composable, type HandleOf, type ValueOf } from './composable';
export { freeze } from './freeze';
export { GroupResult } from './group-result';
export { planLaunch, type PlannedTask } from './launch';
export { firstTaskOf, memberId, tasksOf, type CanvasNode, type ChainNode, type Continuation, type Flow, type GroupMembership, type GroupNode, type StepOptions, type TaskNode } from './nodes';
export { continueFlow, failFlow, type FlowContext, type StepFailure } from './flow';
