/**
 * The Redis Cluster failover test (`npm run test:failover`): it kills a master of the local test
 * cluster, so it runs on its own, not inside `npm test`, where other suites share that cluster.
 */
import type { Config } from 'jest';
import base from './jest.config';

const cluster = (base.projects as Config[]).find((project) => project.displayName === 'cluster') as Config;

const config: Config = {
  testTimeout: 180_000,
  maxWorkers: 1,
  projects: [
    {
      ...cluster,
      displayName: 'cluster failover',
      testMatch: ['<rootDir>/packages/celeriac/test/cluster-failover/*.test.ts'],
    },
  ],
};

export default config;
