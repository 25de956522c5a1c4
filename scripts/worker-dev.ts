/**
 * Runs the edge worker in local workerd, like `wrangler dev --local`, through wrangler's
 * programmatic API so that the DevTools inspector is not started at all: `wrangler dev` always
 * opens one (its own proxy and workerd's inspector on a random loopback port), and workerd's
 * accepts any Host header, so a web page could reach it by DNS rebinding and run code in the
 * worker (its env holds TUNNEL_SECRET). Started as a child process by `local-stack.ts`.
 *
 * Usage: node --import tsx scripts/worker-dev.ts '{"port":8787,"persistTo":"…","envFile":"…","agentPackModule"?:"…","agentPackPath"?:"…","config"?:"…","entry"?:"…"}'
 * (`agentPackModule`: where this start writes its agent-pack module, see `agentPackBuild`;
 * `agentPackPath`: the pack folder, default AGENT_PACK_PATH, else `agent-packs/`;
 * `config`: another wrangler configuration; `entry`: another Worker entry, as the tests' entry
 * with fault hooks). Prints `Ready on <url>` once the worker answers; SIGTERM/SIGINT stop it.
 */
import { join, resolve } from 'node:path'
import { unstable_startWorker } from 'wrangler'
import { defaultAgentPackDir } from '../edge-worker/scripts/agent-pack-module.ts'
import { ROOT } from './local-stack.ts'

interface WorkerDevOptions {
  port: number
  persistTo: string
  envFile: string
  agentPackModule?: string
  agentPackPath?: string
  config?: string
  entry?: string
}

const options = JSON.parse(process.argv[2] ?? '{}') as Partial<WorkerDevOptions>
if (!options.port || !options.persistTo || !options.envFile) {
  console.error(
    'usage: worker-dev.ts \'{"port":…,"persistTo":"…","envFile":"…","agentPackModule"?:"…","agentPackPath"?:"…","config"?:"…","entry"?:"…"}\'',
  )
  process.exit(2)
}

/**
 * The build of the repository's Worker with the agent pack of `packDir` in a module of this
 * start's own, `moduleFile`, which the Worker's `#agent-pack` import is aliased to. With the one
 * shared module (`src/generated/agent-pack.ts`), two workers started at once with different packs
 * (the end-to-end files run in parallel) could each bundle the other's pack. The pack folder is
 * passed on the command line, not in AGENT_PACK_PATH: wrangler first runs the configuration's own
 * `[build] command`, which writes the shared module from AGENT_PACK_PATH, and that must stay the
 * default pack for what reads it without building (the workers test project). The build's watcher
 * follows `packDir`, so an edit of the pack reloads the worker. wrangler runs this command when
 * that watcher is ready (even with `watch: false`), before the worker first answers.
 */
function agentPackBuild(packDir: string, moduleFile: string): Parameters<typeof unstable_startWorker>[0]['build'] {
  return {
    alias: { '#agent-pack': moduleFile },
    custom: {
      command: `node --import tsx edge-worker/scripts/build-agent-pack.ts --pack ${JSON.stringify(packDir)} --out ${JSON.stringify(moduleFile)}`,
      watch: packDir,
      workingDirectory: ROOT,
    },
  }
}

const worker = await unstable_startWorker({
  config: options.config ?? join(ROOT, 'wrangler.toml'),
  ...(options.entry ? { entrypoint: options.entry } : {}),
  ...(options.agentPackModule
    ? { build: agentPackBuild(resolve(options.agentPackPath ?? defaultAgentPackDir()), options.agentPackModule) }
    : {}),
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
