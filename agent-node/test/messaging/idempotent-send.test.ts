/**
 * Requests under one idempotency key at once, on SQLite and PostgreSQL, through the admin API to
 * a real Credo wallet: the key is claimed before anything else (`MessageService.send`), so a
 * request that finds it claimed must not take a claim whose message is still being stored for
 * one left by a request that stopped. All of them answer the same message id, one of them as
 * the original, and the wallet receives the text once.
 */
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { dialects } from '../support/temp-databases.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'

const logger = createLogger('silent')

describe.each(dialects)('requests under one Idempotency-Key at once, on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('answer one message id, send it once, and mark all but one as replayed', { timeout: 60_000 }, async () => {
    const wallet = await WalletPeer.create({ label: `idempotent wallet ${dialect}`, logger })
    try {
      const { connectionId, walletConnectionId } = await connectWallet(started.agent.node, started.agent.adminUrl, wallet)
      const texts: string[] = []
      wallet.onText((text) => {
        if (text.connectionId === walletConnectionId) texts.push(text.content)
      })
      const key = crypto.randomUUID()
      const post = (content: string) =>
        fetch(`${started.agent.adminUrl}/v1/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ type: 'text', connectionId, content }),
        })

      const responses = await Promise.all(Array.from({ length: 6 }, () => post('said once')))
      expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200))
      const ids = await Promise.all(responses.map(async (response) => ((await response.json()) as { id: string }).id))
      expect(new Set(ids).size).toBe(1)
      expect(responses.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(1)

      expect((await post('said once')).headers.get('idempotent-replayed')).toBe('true')
      // a connection's messages leave in the order accepted: a repeat would come before this one
      await started.agent.postMessage({ type: 'text', connectionId, content: 'the end' })
      await expect.poll(() => texts.includes('the end')).toBe(true)
      expect(texts.filter((text) => text === 'said once')).toEqual(['said once'])
    } finally {
      await wallet.stop()
    }
  })
})
