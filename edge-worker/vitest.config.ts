/**
 * The `workers` test project: tests run inside workerd with the Worker of ../wrangler.toml
 * (@cloudflare/vitest-pool-workers). Besides the main Worker (LLM = the scripted server started by
 * the global setup; one HTTP tool, `lookup`, also served by the global setup), three auxiliary workers run the production bundle with other settings:
 * `WITHOUT_LLM` (no model configured), `UNCONFIGURED` (no TUNNEL_SECRET either) and
 * `AUTH_REQUIRED_WORKER` (`AUTH_REQUIRED=true`: guests may not chat).
 */
import { cloudflareTest } from '@cloudflare/vitest-pool-workers'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { defineConfig } from 'vitest/config'
import { expectOptions } from '../vitest.shared.ts'
import { TEST_MEMORY_WINDOW, TEST_MODEL, TEST_TUNNEL_SECRET } from './test/support/constants.ts'

const WRANGLER_CONFIG = new URL('../wrangler.toml', import.meta.url).pathname

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => {
      const { workerOptions } = unstable_getMiniflareWorkerOptions(WRANGLER_CONFIG)
      const bundled = (name: string, bindings: Record<string, string>) => ({
        name,
        modules: true,
        scriptPath: inject('workerBundlePath'),
        compatibilityDate: workerOptions.compatibilityDate,
        compatibilityFlags: workerOptions.compatibilityFlags,
        durableObjects: workerOptions.durableObjects,
        bindings,
      })
      return {
        wrangler: { configPath: WRANGLER_CONFIG },
        miniflare: {
          bindings: {
            TUNNEL_SECRET: TEST_TUNNEL_SECRET,
            COMPAT_BASE_URL: inject('llmBaseUrl'),
            COMPAT_MODEL: TEST_MODEL,
            AGENT_MEMORY_WINDOW: String(TEST_MEMORY_WINDOW),
            LLM_TOOLS_CONFIG: JSON.stringify([
              { name: 'lookup', description: 'Looks a word up', endpoint: `${inject('toolBaseUrl')}/?q={query}` },
            ]),
            OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
          },
          serviceBindings: {
            WITHOUT_LLM: 'parley-without-llm',
            UNCONFIGURED: 'parley-unconfigured',
            AUTH_REQUIRED_WORKER: 'parley-auth-required',
          },
          workers: [
            bundled('parley-without-llm', { TUNNEL_SECRET: TEST_TUNNEL_SECRET }),
            bundled('parley-unconfigured', {}),
            bundled('parley-auth-required', {
              TUNNEL_SECRET: TEST_TUNNEL_SECRET,
              COMPAT_BASE_URL: inject('llmBaseUrl'),
              COMPAT_MODEL: TEST_MODEL,
              AUTH_REQUIRED: 'true',
            }),
          ],
        },
      }
    }),
  ],
  test: {
    name: 'workers',
    include: ['test/**/*.test.ts'],
    // Pure modules are tested in Node (the root config's `node` project).
    exclude: ['test/unit/**'],
    globalSetup: ['test/global-setup.ts'],
    // The tunnel gateway is one object per Worker and keeps one agent socket: files take turns.
    fileParallelism: false,
    // One workerd for all files: with vitest's isolation each file started a Miniflare of its
    // own (the Worker and its three auxiliaries), about 15 s each on 2 cores. Measured: 188 s
    // for the 13 files isolated, 40-43 s shared (in file order and in two shuffled orders).
    isolate: false,
    // vitest runs the projects of one group order with one worker count; this project's is 1.
    sequence: { groupOrder: 1 },
    testTimeout: 30_000,
    expect: expectOptions,
    // Hooks connect test agents to the gateway: at the suite's full load on 2 cores that once
    // took longer than vitest's default 10 s.
    hookTimeout: 30_000,
  },
})
