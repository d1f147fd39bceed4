/** Jest global teardown (see cluster-global-setup.ts). */
export { teardown as default } from '../cluster-global-setup';
