/** Jest global teardown of the `cluster` project (see cluster-setup.ts). */
export { stopClusterForTests as default } from '../cluster-global-setup';
