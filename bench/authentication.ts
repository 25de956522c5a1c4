/**
 * Benchmark: from selecting "authenticate" in the contextual menu to the success message.
 * Path: wallet action-menu `perform` -> agent-node -> tunnel -> conversation Durable Object
 * (workerd) -> identity-proof-request command -> agent-node present-proof request -> wallet
 * builds the AnonCreds presentation -> agent-node verifies it -> identity-proof-submit event ->
 * conversation -> AUTH_SUCCESS_NAME text -> wallet. The credential is issued by the same
 * agent-node (credential type + offer). One authentication at a time; each is followed by a
 * logout (not timed) so the next one starts from a guest.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import '../agent-node/src/anoncreds-registry/register.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { WalletPeer } from '../agent-node/src/wallet-peer/WalletPeer.ts'
import { restartWorker, startLocalStack } from '../scripts/local-stack.ts'
import { adminCall, authenticateFromMenu, issueCredential } from '../test/support/credential-auth.ts'
import { ms, summarize } from './stats.ts'

const RUNS = Number(process.env.BENCH_AUTH_RUNS ?? 30)
const WARMUP = 3

export async function runAuthentication(): Promise<void> {
  console.log(`authentication: ${RUNS} authentications from the menu, one at a time, after ${WARMUP} warm-up`)
  const packDir = mkdtempSync(join(tmpdir(), 'parley-bench-auth-pack-'))
  writeFileSync(join(packDir, 'agent-pack.yaml'), 'flows:\n  authentication: { enabled: true }\n')
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-auth-'))
  const stack = await startLocalStack({
    agentPackPath: packDir,
    agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'error' },
  })
  const wallet = await WalletPeer.create({ label: 'bench wallet', logger: createLogger('error', 'bench') })
  try {
    const admin = stack.agent.adminUrl
    const { id: credentialDefinitionId } = await adminCall<{ id: string }>(admin, '/v1/credential-types', {
      name: 'bench-member',
      version: '1.0',
      attributes: ['name'],
    })
    await restartWorker(stack, {
      agentPackPath: packDir,
      vars: { CREDENTIAL_DEFINITION_ID: credentialDefinitionId },
    })
    await issueCredential(admin, wallet, credentialDefinitionId, { name: 'Bench' })
    const { url } = await adminCall<{ url: string }>(admin, '/v1/invitation')
    const connectionId = await wallet.connect(url)
    await wallet.contextualMenu(connectionId)

    const samples: number[] = []
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const start = performance.now()
      const reply = await authenticateFromMenu(wallet, connectionId, 'authenticate')
      const elapsed = performance.now() - start
      if (reply !== 'You are now authenticated as Bench.') throw new Error(`unexpected reply: ${reply}`)
      if (i >= WARMUP) samples.push(elapsed)
      const out = wallet.nextText((message) => message.connectionId === connectionId)
      await wallet.contextualMenu(connectionId, (record) => record.menu?.options[0]?.name === 'logout')
      await wallet.performContextualMenuOption(connectionId, 'logout')
      await out
      await wallet.contextualMenu(connectionId, (record) => record.menu?.options[0]?.name === 'authenticate')
    }
    const summary = summarize(samples)
    console.table({
      'menu select -> success message': { p50: ms(summary.p50), p99: ms(summary.p99), mean: ms(summary.mean), n: summary.n },
    })
  } finally {
    await wallet.stop()
    await stack.stop()
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}
