/** Jest global teardown: stops the test Sentinel setup if the global setup started it. */
export { teardown as default } from './sentinel-global-setup';
