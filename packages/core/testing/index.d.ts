export * from '../dist/testing/index';
