/**
 * For fault tests with real processes: agent-node as a child process on a data folder of its own
 * (real SQLite), its events going to a webhook receiver, and a Credo wallet peer. `restart`
 * starts it again on the same DATA_DIR and wallet key (after the test killed it).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { type AgentNodeForm, freePort, startAgentNodeProcess, type AgentNodeProcess } from '../../scripts/local-stack.ts'
import { startEventReceiver, type EventReceiver } from '@parley/agent-node/testing/event-receiver'

export interface KillableAgent {
  readonly receiver: EventReceiver
  readonly wallet: WalletPeer
  /** Its DATA_DIR (`agent.sqlite` is there). */
  readonly dataDir: string
  /** The running process (a new one after `restart`). */
  readonly agent: AgentNodeProcess
  /** Sends SIGKILL to the process group and resolves once it exited. */
  kill(): Promise<void>
  restart(): Promise<AgentNodeProcess>
  stop(): Promise<void>
}

/** Sends SIGKILL to `proc`'s process group and resolves once it exited (at once if it has). */
export async function killProcess(proc: AgentNodeProcess): Promise<void> {
  const { child } = proc
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  process.kill(-child.pid!, 'SIGKILL')
  await exited
}

/**
 * Starts the receiver, agent-node (with `env` on top of the defaults; its sources through tsx
 * unless `form` says `bundle`, which `npm run build` must have built) and the wallet.
 */
export async function startKillableAgent(
  label: string,
  env: Record<string, string> = {},
  form: AgentNodeForm = 'tsx',
): Promise<KillableAgent> {
  const receiver = await startEventReceiver()
  const dataDir = mkdtempSync(join(tmpdir(), `parley-${label}-`))
  const fullEnv = {
    EVENTS_BASE_URL: receiver.url,
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...env,
  }
  let agent = await startAgentNodeProcess({ env: fullEnv, form })
  const wallet = await WalletPeer.create({ label: `${label} wallet`, logger: createLogger('fatal', 'wallet') })
  return {
    receiver,
    wallet,
    dataDir,
    get agent() {
      return agent
    },
    kill: () => killProcess(agent),
    async restart() {
      agent = await startAgentNodeProcess({ env: fullEnv, form })
      return agent
    },
    async stop() {
      await wallet.stop()
      await agent.stop()
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
