/**
 * Runs the edge worker in local workerd, like `wrangler dev --local`, through wrangler's
 * programmatic API so that the DevTools inspector is not started at all: `wrangler dev` always
 * opens one (its own proxy and workerd's inspector on a random loopback port), and workerd's
 * accepts any Host header, so a web page could reach it by DNS rebinding and run code in the
 * worker (its env holds TUNNEL_SECRET). Started as a child process by `local-stack.ts`.
 *
 * Usage: node --import tsx scripts/worker-dev.ts '{"port":8787,"persistTo":"…","envFile":"…","config"?:"…","entry"?:"…"}'
 * (`config`: another wrangler configuration; `entry`: another Worker entry, as the tests' entry
 * with fault hooks). Prints `Ready on <url>` once the worker answers; SIGTERM/SIGINT stop it.
 */
import { join } from 'node:path'
import { unstable_startWorker } from 'wrangler'
import { ROOT } from './local-stack.ts'

interface WorkerDevOptions {
  port: number
  persistTo: string
  envFile: string
  config?: string
  entry?: string
}

const options = JSON.parse(process.argv[2] ?? '{}') as Partial<WorkerDevOptions>
if (!options.port || !options.persistTo || !options.envFile) {
  console.error('usage: worker-dev.ts \'{"port":…,"persistTo":"…","envFile":"…","config"?:"…","entry"?:"…"}\'')
  process.exit(2)
}

const worker = await unstable_startWorker({
  config: options.config ?? join(ROOT, 'wrangler.toml'),
  ...(options.entry ? { entrypoint: options.entry } : {}),
  // The configuration's `[build] command` runs twice per start, the second time when wrangler's
  // `watch_dir` watcher is ready (even with `watch: false`); it was always seen to end before the
  // worker first answers, so `startWorker`'s build lock (local-stack.ts) covers both. Keep the
  // build command: without one wrangler bundles with a watching esbuild, which reloads a running
  // worker whenever another start rewrites the generated agent-pack module (seen in e2e files).
  envFiles: [options.envFile],
  dev: {
    remote: false,
    server: { hostname: '127.0.0.1', port: options.port },
    inspector: false,
    persist: options.persistTo,
    watch: false,
    liveReload: false,
  },
})
await worker.ready
console.log(`Ready on ${(await worker.url).origin}`)

const stop = () => void worker.dispose().finally(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
