/**
 * The stack the chat benchmarks run: the edge worker in workerd (`wrangler dev`), agent-node in
 * this process dialling it, and a wallet peer connected to the agent (greeting received).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidCommBasicMessageEventTypes, DidCommBasicMessageRole, type DidCommBasicMessageStateChangedEvent } from '@credo-ts/didcomm'
import { startAgentNode } from '../agent-node/src/app.ts'
import { loadConfig } from '../agent-node/src/config/index.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { WalletPeer } from '../agent-node/src/wallet-peer/WalletPeer.ts'
import { freePort, startWorker } from '../scripts/local-stack.ts'

export interface BenchStack {
  node: Awaited<ReturnType<typeof startAgentNode>>
  /** The worker's process (wrangler, which runs workerd below it). */
  worker: Awaited<ReturnType<typeof startWorker>>
  wallet: WalletPeer
  connectionId: string
  stop(): Promise<void>
}

/** The worker in workerd and agent-node in this process, joined by the tunnel. */
export interface BenchNodes {
  node: Awaited<ReturnType<typeof startAgentNode>>
  worker: Awaited<ReturnType<typeof startWorker>>
  tunnelSecret: string
  stop(): Promise<void>
}

/**
 * Starts the worker (`workerVars`, TUNNEL_SECRET added; `agentPackPath` bundled, `entry` for the
 * test entry) and agent-node dialling it, with `agentNodeEnv` added to its environment.
 */
export async function startBenchNodes(
  options: { workerVars?: Record<string, string>; agentPackPath?: string; entry?: string; agentNodeEnv?: Record<string, string> } = {},
): Promise<BenchNodes> {
  const logger = createLogger('error', 'bench')
  const tunnelSecret = randomBytes(32).toString('base64url')
  const worker = await startWorker({
    vars: { TUNNEL_SECRET: tunnelSecret, ...options.workerVars },
    agentPackPath: options.agentPackPath,
    entry: options.entry,
  })
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'))
  const { config } = loadConfig({
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    CONTROLLER_TUNNEL_URL: `${worker.url.replace(/^http/, 'ws')}/tunnel`,
    TUNNEL_SECRET: tunnelSecret,
    LOG_LEVEL: 'error',
    ...options.agentNodeEnv,
  })
  const node = await startAgentNode(config, logger)
  const stop = async () => {
    await node.stop()
    await worker.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { node, worker, tunnelSecret, stop }
}

/** Starts the stack with `workerVars` (TUNNEL_SECRET added) and the pack in `agentPackPath` (default `agent-packs/`). */
export async function startBenchStack(workerVars: Record<string, string>, agentPackPath?: string): Promise<BenchStack> {
  const logger = createLogger('error', 'bench')
  const nodes = await startBenchNodes({ workerVars, agentPackPath })
  const { node, worker } = nodes
  const wallet = await WalletPeer.create({ label: 'bench wallet', logger })
  const stop = async () => {
    await wallet.stop()
    await nodes.stop()
  }
  try {
    const { url } = (await (await fetch(`http://127.0.0.1:${node.adminPort}/v1/invitation`)).json()) as { url: string }
    const greeting = wallet.nextText()
    const connectionId = await wallet.connect(url)
    await greeting
    return { node, worker, wallet, connectionId, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Sends `count` texts `<label> <i> <nonce>` one at a time; each sample (ms) lasts until a reply
 * ending with the text arrives.
 */
export async function measureReplies(wallet: WalletPeer, connectionId: string, label: string, count: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const content = `${label} ${i} ${randomBytes(4).toString('hex')}`
    const reply = wallet.nextText((m) => m.content.endsWith(content), 30_000)
    const start = performance.now()
    await wallet.sendText(connectionId, content)
    await reply
    samples.push(performance.now() - start)
  }
  return samples
}

/**
 * Turns agent-node into the raw Credo echo: the tunnel is closed and no longer a subscriber (its
 * events would only be retried), and agent-node itself answers each basic message with
 * `echo: <text>`, through Credo's basic messages as a plain Credo agent would.
 */
export async function switchToRawEcho(node: BenchStack['node']): Promise<void> {
  await node.tunnel?.stop()
  if (node.tunnel) await node.delivery.removeSubscriber(node.tunnel.name)
  const basicMessages = node.agent.modules.didcomm.basicMessages
  node.agent.events.on<DidCommBasicMessageStateChangedEvent>(
    DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged,
    ({ payload }) => {
      if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
      void basicMessages.sendMessage(payload.basicMessageRecord.connectionId, `echo: ${payload.message.content}`)
    },
  )
}
