/** Jest global setup (see cluster-global-setup.ts). */
export { setup as default } from '../cluster-global-setup';
