import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { expectOptions } from './vitest.shared.ts'

// One `npm test` runs every project: Node code (shared, agent-node, the edge-worker's pure
// modules, end-to-end) and the edge-worker's tests inside workerd (edge-worker/vitest.config.ts).
// PostgreSQL: test/support/postgres-server.ts starts one for the run unless PARLEY_TEST_POSTGRES_URL
// names a server.
// NODE_ENV stays `development` in Node tests: didwebvh-ts writes every DID log it touches to
// ./test/logs/ when NODE_ENV is `test` (vitest's default).
const env = { NODE_ENV: 'development' }
// The container image test (test/deploy/agent-node-image.test.ts) builds an image with podman: minutes, root, podman and
// debootstrap needed. It runs when PARLEY_TEST_CONTAINER_IMAGE=1 (.ci/run decides).
const containerTests = process.env.PARLEY_TEST_CONTAINER_IMAGE === '1' ? [] : ['test/deploy/agent-node-image.test.ts']

// Two test files at a time at least: vitest's default (one per core but one) runs a 2-core CI
// machine's files one after another, and a file often waits (on databases, sockets, child
// processes) with a core left idle. Measured on 2 cores: 46 agent-node files took 302 s one at
// a time and 185 s two at a time.
const maxWorkers = Math.max(2, availableParallelism() - 1)

export default defineConfig({
  test: {
    maxWorkers,
    globalSetup: ['test/support/postgres-server.ts'],
    projects: [
      {
        test: {
          name: 'node',
          include: ['shared/test/**/*.test.ts', 'agent-node/test/**/*.test.ts', 'edge-worker/test/unit/**/*.test.ts'],
          env,
          expect: expectOptions,
          testTimeout: 30_000,
          // A worker's files share its module cache, so Credo and the rest load once per worker,
          // not once per file: in a whole run on 2 cores the project took 220 s instead of 411 s
          // (the run's module import time 79 s instead of 396 s). Hence the AnonCreds engine is
          // registered before every file (setupFiles): Credo reads it through an ES-module import
          // of a CommonJS package, whose named exports are copied once per process, so without it
          // the first file of a worker to import Credo's AnonCreds decided for all the others.
          isolate: false,
          setupFiles: ['agent-node/src/anoncreds-registry/register.ts'],
        },
      },
      'edge-worker/vitest.config.ts',
      // End-to-end files run two at a time like the rest (the project alone on 2 cores: 288 s one
      // at a time, 198–214 s two at a time in three runs); each starts its own processes on free
      // ports, and their workers' builds take turns (startWorker, scripts/local-stack.ts).
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...containerTests],
          env,
          expect: expectOptions,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
