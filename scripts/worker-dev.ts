/**
 * Runs the edge worker in local workerd, like `wrangler dev --local`, through wrangler's
 * programmatic API so that the DevTools inspector is not started at all: `wrangler dev` always
 * opens one (its own proxy and workerd's inspector on a random loopback port), and workerd's
 * accepts any Host header, so a web page could reach it by DNS rebinding and run code in the
 * worker (its env holds TUNNEL_SECRET). Started as a child process by `local-stack.ts`.
 *
 * Usage: node --import tsx scripts/worker-dev.ts <port> <persist folder> <env file> [wrangler config]
 * Prints `Ready on <url>` once the worker answers; SIGTERM/SIGINT stop it.
 */
import { join } from 'node:path'
import { unstable_startWorker } from 'wrangler'
import { ROOT } from './local-stack.ts'

const [port, persistTo, envFile, config = join(ROOT, 'wrangler.toml')] = process.argv.slice(2)
if (!port || !persistTo || !envFile) {
  console.error('usage: worker-dev.ts <port> <persist folder> <env file> [wrangler config]')
  process.exit(2)
}

const worker = await unstable_startWorker({
  config,
  envFiles: [envFile],
  dev: {
    remote: false,
    server: { hostname: '127.0.0.1', port: Number(port) },
    inspector: false,
    persist: persistTo,
    watch: false,
    liveReload: false,
  },
})
await worker.ready
console.log(`Ready on ${(await worker.url).origin}`)

const stop = () => void worker.dispose().finally(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
