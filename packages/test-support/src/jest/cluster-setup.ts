/**
 * Jest global setup of the `cluster` project. Jest runs a global setup module once per run, with the
 * config of whichever project's test it meets first, so each project that needs servers has a module
 * of its own rather than one module that asks which project it runs for.
 */
export { startClusterForTests as default } from '../cluster-global-setup';
