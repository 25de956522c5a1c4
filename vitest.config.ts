import { defineConfig } from 'vitest/config'

// One `npm test` runs every project: Node code (shared, agent-node, end-to-end) and the
// edge-worker's tests inside workerd (edge-worker/vitest.config.ts).
// NODE_ENV stays `development` in Node tests: didwebvh-ts writes every DID log it touches to
// ./test/logs/ when NODE_ENV is `test` (vitest's default).
const env = { NODE_ENV: 'development' }
// The container image test (test/deploy/agent-node-image.test.ts) builds an image with podman: minutes, root, podman and
// debootstrap needed. It runs when PARLEY_TEST_CONTAINER_IMAGE=1 (.ci/run decides).
const containerTests = process.env.PARLEY_TEST_CONTAINER_IMAGE === '1' ? [] : ['test/deploy/agent-node-image.test.ts']

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['shared/test/**/*.test.ts', 'agent-node/test/**/*.test.ts'],
          env,
          testTimeout: 30_000,
        },
      },
      'edge-worker/vitest.config.ts',
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...containerTests],
          env,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
