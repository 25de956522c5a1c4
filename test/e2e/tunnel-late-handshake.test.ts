/**
 * The tunnel behind a proxy that delivers a handshake late, every part real but the LLM:
 * agent-node and the worker (workerd) as processes, a TCP proxy between them that holds
 * agent-node's first upgrade back past its handshake timeout and delivers it after agent-node's
 * next one opened (as `wrangler dev`'s proxy does while the Worker restarts), a Credo wallet, the
 * scripted model. The worker replaces the open socket with the late one; agent-node must see its
 * own handshake in the close and redial at once, not hold off as after another client's takeover.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { freePort, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { explainFailure, lastStackOutput } from '../support/diagnosis.ts'
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

describe('the tunnel behind a proxy that delivers a handshake late', () => {
  let llm: ScriptedLlm
  let proxy: HoldingProxy
  let stack: LocalStack
  let wallet: WalletPeer
  let dataDir: string

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    const workerPort = await freePort()
    proxy = await startHoldingProxy(workerPort)
    proxy.holding = true
    dataDir = mkdtempSync(join(tmpdir(), 'parley-late-handshake-'))
    stack = await startLocalStack({
      workerPort,
      workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' },
      agentEnv: {
        CONTROLLER_TUNNEL_URL: `ws://127.0.0.1:${proxy.port}/tunnel`,
        DATA_DIR: dataDir,
        AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
        LOG_LEVEL: 'info',
      },
    })
    wallet = await WalletPeer.create({ label: 'late handshake wallet', logger: createLogger('fatal', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await proxy?.close()
    await llm?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('redials at once when its own late handshake replaced its socket, and the chat goes on', async () => {
    const tunnelOpen = async () =>
      ((await (await fetch(`${stack.agent.adminUrl}/readyz`)).json()) as { checks: { tunnel: { ok: boolean } } }).checks.tunnel.ok
    await vi.waitFor(() => expect(proxy.held).toBe(1), { timeout: 30_000, interval: 100 })
    proxy.holding = false
    // agent-node gives the held upgrade up (its 10 s handshake timeout) and dials again, through now
    await vi.waitFor(async () => expect(await tunnelOpen()).toBe(true), { timeout: 60_000, interval: 200 })
    // The late upgrade reaches the worker, which closes the open socket 4000 naming that handshake.
    await proxy.release()
    const report = () => lastStackOutput(stack)

    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const greeting = wallet.nextText(() => true, 20_000)
    const connectionId = await wallet.connect(url)
    await explainFailure(greeting, report)
    // well within the 60 s a takeover by another client holds the tunnel off
    const echo = wallet.nextText((m) => m.content === 'echo: after the late handshake', 20_000)
    await wallet.sendText(connectionId, 'after the late handshake')
    await explainFailure(echo, report)

    const output = stack.agent.output()
    expect(output).toContain('tunnel replaced by a handshake of this agent-node that arrived late')
    expect(output).not.toContain('tunnel taken over')
  }, 150_000)
})
