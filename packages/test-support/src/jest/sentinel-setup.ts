/** Jest global setup of the `sentinel` project (see cluster-setup.ts for why one module a project). */
export { startSentinelForTests as default } from '../sentinel-global-setup';
