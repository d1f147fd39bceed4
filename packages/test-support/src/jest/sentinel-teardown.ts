/** Jest global teardown of the `sentinel` project. */
export { stopSentinelForTests as default } from '../sentinel-global-setup';
