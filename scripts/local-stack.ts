/**
 * Starts Parley locally as real processes: the edge worker in workerd (`wrangler dev`) and
 * agent-node, joined by the tunnel. Used by `npm start`, the end-to-end tests and the benchmarks,
 * so all three run the system the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@parley/shared/testing/free-port'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

export { freePort }

export interface ManagedProcess {
  child: ChildProcess
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /**
   * SIGTERM to the process and its group, then SIGKILL after `graceMs`; resolves when the process
   * has exited and the rest of its group with it (waiting at most `graceMs` + 1 s for the rest).
   */
  stop(graceMs?: number): Promise<void>
}

interface LaunchOptions {
  name: string
  command: string
  args: string[]
  env: Record<string, string | undefined>
  /** Copy the output to this process's stdout with a `[name]` prefix. */
  echo?: boolean
  /** Runs once the process has exited. */
  onExit?: () => void
}

/** A temporary folder removed when this process exits. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Spawns `command` in a process group of its own (killed when this process exits), collecting its
 * output; `stop` ends the whole group.
 */
export function launch({ name, command, args, env, echo, onExit }: LaunchOptions): ManagedProcess {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const collect = (chunk: Buffer) => {
    const text = chunk.toString()
    output += text
    if (output.length > 2_000_000) output = output.slice(-1_000_000)
    if (echo) process.stdout.write(text.replace(/^(?=.)/gm, `[${name}] `))
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      onExit?.()
      resolve()
    }),
  )
  // The child has its own process group (so stop() reaches wrangler's workerd too); make sure
  // that group dies with us even when we exit without calling stop() (crash, broken pipe).
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {}
  }
  process.once('exit', killGroup)
  void exited.then(() => process.off('exit', killGroup))
  /** Whether a process of the child's group is still there (wrangler's workerd may outlive wrangler briefly). */
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0)
      return true
    } catch {
      return false
    }
  }
  return {
    child,
    output: () => output,
    async stop(graceMs = 5_000) {
      if (!groupAlive()) return
      try {
        process.kill(-child.pid!, 'SIGTERM') // the whole group: wrangler has children of its own
      } catch {
        return
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {}
      }, graceMs)
      await exited
      // A worker started again on the same port and storage must not meet the old one's workerd.
      for (const deadline = Date.now() + graceMs + 1_000; groupAlive() && Date.now() < deadline; ) await delay(20)
      clearTimeout(timer)
    },
  }
}

/**
 * Checks `ready` every 200 ms until it holds; rejects when `proc` exits first or `timeoutMs`
 * passes, naming `what` (what was awaited, e.g. `http://…/health answered`) and the end of the
 * process's output.
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  what: string,
  ready: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`process exited (${proc.child.exitCode}) before ${what}:\n${proc.output().slice(-4000)}`)
    if (await ready()) return
    await delay(200)
  }
  throw new Error(`not ${what} within ${timeoutMs} ms:\n${proc.output().slice(-4000)}`)
}

/** Polls `url` until it answers 2xx, the process exits, or `timeoutMs` passes (`waitUntilReady`). */
function waitForHttp(url: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const answers = () =>
    fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    )
  return waitUntilReady(proc, `${url} answered`, answers, timeoutMs)
}

/**
 * One `NAME=value` line of the env file `wrangler dev --env-file` reads, such that the Worker
 * gets `value` byte for byte. Wrangler reads the file with dotenv, which keeps a quoted value
 * literally (but turns `\\n` into a newline inside double quotes), then with dotenv-expand, which
 * expands `$NAME` and `${NAME}` unless the `$` is escaped as `\\$`. So every `$` is escaped and
 * the value is quoted with a quote character it does not contain: `'`, else a backtick, else `"`.
 * JSON values (LLM_TOOLS_CONFIG) and multi-line prompts arrive unchanged.
 * @throws when no quoting keeps the value intact: it holds all three quote characters (or `'`,
 *   a backtick and a `\\n` sequence), a carriage return, or ends with a backslash.
 */
export function envFileLine(name: string, value: string): string {
  const escaped = value.replaceAll('$', '\\$')
  const quote = ["'", '`', '"'].find((candidate) => !value.includes(candidate) && (candidate !== '"' || !/\\[nr]/.test(value)))
  if (quote === undefined || value.includes('\r') || value.endsWith('\\')) {
    throw new Error(
      `${name}: this value cannot be passed to wrangler dev unchanged (all three quote characters, a carriage return or a final backslash)`,
    )
  }
  return `${name}=${quote}${escaped}${quote}`
}

export interface WorkerProcess extends ManagedProcess {
  url: string
  port: number
  /** Folder of the worker's Durable Object storage; start another worker on it to keep state. */
  persistTo: string
}

/** Options of `startWorker`. */
export interface WorkerOptions {
  port?: number
  vars: Record<string, string>
  persistTo?: string
  echo?: boolean
  /** Worker entry instead of wrangler.toml `main`, relative to the repository root (the tests' entry with fault hooks: `edge-worker/test/entry/index.ts`). */
  entry?: string
  /** Agent pack folder the build step bundles (default AGENT_PACK_PATH, else `agent-packs/`). */
  agentPackPath?: string
  /** Another wrangler configuration to run instead of the repository's. */
  config?: string
}

/**
 * Runs the edge worker in local workerd (`worker-dev.ts`: wrangler, no inspector) on `port`, with `vars` as Worker
 * vars (secrets included: local only). Durable Object storage goes to `persistTo` (a fresh
 * temporary folder by default, so runs never share state). `config` is another wrangler
 * configuration to run instead of the repository's. Resolves when `/health` answers.
 * The repository's Worker bundles the pack in `agentPackPath` through a module of this start's own
 * (`worker-dev.ts` `agentPackBuild`), so workers started at once with different packs (the
 * end-to-end files run in parallel) never bundle each other's.
 */
export async function startWorker(options: WorkerOptions): Promise<WorkerProcess> {
  const port = options.port ?? (await freePort())
  // A folder made here outlives the worker (a restarted worker may reuse it) until we exit.
  const persistTo = options.persistTo ?? tempDir('parley-worker-')
  // Vars (secrets among them) go through a private env file, not the command line `ps` shows;
  // it is removed as soon as the worker exits.
  const envDir = tempDir('parley-worker-env-')
  const envFile = join(envDir, '.env')
  writeFileSync(
    envFile,
    Object.entries(options.vars)
      .map(([name, value]) => envFileLine(name, value))
      .join('\n'),
    { mode: 0o600 },
  )
  // `wrangler dev` without its DevTools inspector (see worker-dev.ts).
  const proc = launch({
    name: 'worker',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(ROOT, 'scripts', 'worker-dev.ts'),
      JSON.stringify({
        port,
        persistTo,
        envFile,
        agentPackModule: options.config ? undefined : join(envDir, 'agent-pack.ts'),
        agentPackPath: options.agentPackPath,
        config: options.config,
        entry: options.entry,
      }),
    ],
    env: {
      WRANGLER_SEND_METRICS: 'false',
      CI: 'true',
      // Miniflare otherwise asks workers.cloudflare.com for a `Request.cf` object at every start
      // (up to 3 s, and an error with its stack when offline); the worker never reads `request.cf`.
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    },
    echo: options.echo,
    onExit: () => rmSync(envDir, { recursive: true, force: true }),
  })
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}/health`, proc, 90_000)
  return { ...proc, url, port, persistTo }
}

export interface AgentNodeProcess extends ManagedProcess {
  adminUrl: string
  publicUrl: string
}

/** The two forms agent-node runs in: its TypeScript sources through tsx, or the production bundle. */
export type AgentNodeForm = 'tsx' | 'bundle'

/**
 * The node arguments of each form, from the repository root: `tsx` as `npm start` runs it,
 * `bundle` as the Dockerfile does (built by `npm run build`, `agent-node/scripts/build.ts`).
 */
export const AGENT_NODE_ARGS: Record<AgentNodeForm, string[]> = {
  tsx: ['--import', 'tsx', 'agent-node/src/main.ts'],
  bundle: ['--enable-source-maps', 'agent-node/dist/main.mjs'],
}

/**
 * Runs agent-node (`agent-node/src/main.ts` through tsx, or with `form: 'bundle'` the built
 * `agent-node/dist/main.mjs`) with `env` on top of this process's environment.
 * Ports come from `PUBLIC_PORT` / `ADMIN_PORT` in `env` (free ones are picked when absent).
 * Resolves when the admin API answers.
 */
export async function startAgentNodeProcess(options: {
  env: Record<string, string | undefined>
  echo?: boolean
  form?: AgentNodeForm
}): Promise<AgentNodeProcess> {
  const publicPort = options.env.PUBLIC_PORT ?? String(await freePort())
  const adminPort = options.env.ADMIN_PORT ?? String(await freePort())
  const env = { ...options.env, PUBLIC_PORT: publicPort, ADMIN_PORT: adminPort }
  const proc = launch({
    name: 'agent-node',
    command: process.execPath,
    args: AGENT_NODE_ARGS[options.form ?? 'tsx'],
    env,
    echo: options.echo,
  })
  const adminUrl = `http://127.0.0.1:${adminPort}`
  await waitForHttp(`${adminUrl}/v1/agent`, proc, 60_000)
  return { ...proc, adminUrl, publicUrl: options.env.PUBLIC_API_BASE_URL ?? `http://localhost:${publicPort}` }
}

export interface LocalStack {
  /** Replaceable (a test may restart the worker); `stop` stops whichever is current. */
  worker: WorkerProcess
  agent: AgentNodeProcess
  tunnelSecret: string
  stop(): Promise<void>
}

/**
 * How long a stack waits for agent-node's tunnel to open, in ms: agent-node redials a worker that
 * went away with exponential backoff and full jitter, capped at 30 s (`TunnelClient`), so after a
 * worker restart the next dial can be up to 30 s away.
 */
const TUNNEL_OPEN_TIMEOUT_MS = 60_000

/**
 * Resolves once agent-node's tunnel is `state`, as its `GET /readyz` reports it (`checks.tunnel`).
 * @throws when it is not within `timeoutMs`, or agent-node exited.
 */
function waitForTunnel(agent: AgentNodeProcess, state: 'connected' | 'disconnected', timeoutMs: number): Promise<void> {
  const reads = async () => {
    try {
      const response = await fetch(`${agent.adminUrl}/readyz`, { signal: AbortSignal.timeout(1_000) })
      const readiness = (await response.json()) as { checks?: { tunnel?: { state?: string } } }
      return readiness.checks?.tunnel?.state === state
    } catch {
      return false
    }
  }
  return waitUntilReady(agent, `the tunnel ${state}`, reads, timeoutMs)
}

/**
 * Restarts `stack`'s worker on the same port and Durable Object storage with other `options`
 * (its vars get the stack's TUNNEL_SECRET). Resolves once agent-node's tunnel, which redials by
 * itself, is open to the new worker: events sent before that would wait for the redial, up to
 * 30 s later.
 */
export async function restartWorker(stack: LocalStack, options: Omit<WorkerOptions, 'port' | 'persistTo'>): Promise<void> {
  const { port, persistTo } = stack.worker
  await stack.worker.stop()
  // seen closed first, or the old worker's tunnel could pass for the new one's
  await waitForTunnel(stack.agent, 'disconnected', 10_000)
  stack.worker = await startWorker({ ...options, port, persistTo, vars: { TUNNEL_SECRET: stack.tunnelSecret, ...options.vars } })
  await waitForTunnel(stack.agent, 'connected', TUNNEL_OPEN_TIMEOUT_MS)
}

/**
 * Starts the worker, then agent-node dialling it through the tunnel; resolves once the tunnel is
 * open (unless `agentEnv` gives agent-node a CONTROLLER_TUNNEL_URL of its own). `workerVars` go
 * to the worker (e.g. COMPAT_BASE_URL), `agentEnv` to agent-node.
 */
export async function startLocalStack(options: {
  workerVars?: Record<string, string>
  agentEnv?: Record<string, string | undefined>
  tunnelSecret?: string
  workerPort?: number
  workerPersistTo?: string
  /** See `startWorker`'s `entry` and `agentPackPath`. */
  workerEntry?: string
  agentPackPath?: string
  echo?: boolean
}): Promise<LocalStack> {
  const tunnelSecret = options.tunnelSecret ?? randomBytes(32).toString('base64url')
  const worker = await startWorker({
    port: options.workerPort,
    vars: { TUNNEL_SECRET: tunnelSecret, ...options.workerVars },
    persistTo: options.workerPersistTo,
    entry: options.workerEntry,
    agentPackPath: options.agentPackPath,
    echo: options.echo,
  })
  try {
    const agent = await startAgentNodeProcess({
      env: { CONTROLLER_TUNNEL_URL: `${worker.url.replace(/^http/, 'ws')}/tunnel`, TUNNEL_SECRET: tunnelSecret, ...options.agentEnv },
      echo: options.echo,
    })
    try {
      // A caller that points agent-node's tunnel elsewhere (a proxy in between) decides itself when it is up.
      if (options.agentEnv?.CONTROLLER_TUNNEL_URL === undefined) await waitForTunnel(agent, 'connected', TUNNEL_OPEN_TIMEOUT_MS)
    } catch (error) {
      await agent.stop()
      throw error
    }
    const stack: LocalStack = {
      worker,
      agent,
      tunnelSecret,
      async stop() {
        await stack.agent.stop()
        await stack.worker.stop()
        // Durable Object state the stack made for itself goes with it (a caller's folder stays).
        if (!options.workerPersistTo) rmSync(stack.worker.persistTo, { recursive: true, force: true })
      },
    }
    return stack
  } catch (error) {
    await worker.stop()
    throw error
  }
}
