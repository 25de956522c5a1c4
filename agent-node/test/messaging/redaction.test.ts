/**
 * `redact-message` (tunnel command; src/messaging/redaction.ts) on a real agent-node (real SQLite,
 * a WalletPeer connected over WebSocket): a text the wallet sent is overwritten with the
 * redaction marker in Credo's basic message record and in the outbox's `message-received` event;
 * a second run changes nothing; other messages are untouched.
 */
import { DidCommBasicMessageRepository, DidCommBasicMessageRole } from '@credo-ts/didcomm'
import { type AgentEvent, REDACTION_MARKER } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentNode } from '../../src/app.ts'
import { createLogger } from '../../src/logging/index.ts'
import { redactReceivedMessage } from '../../src/messaging/redaction.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { runCommand } from '../../src/tunnel/commands/index.ts'
import { connectWallet, startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

/** Resolves with the message id of the next text stored in the outbox with `content`. */
function storedText(node: AgentNode, content: string): Promise<string> {
  return new Promise((resolve) => {
    const stop = node.events.onStored((events) => {
      const match = events.find(
        (e) => e.event.type === 'message-received' && e.event.message.type === 'text' && e.event.message.content === content,
      )
      if (!match) return
      stop()
      resolve((match.event as Extract<AgentEvent, { type: 'message-received' }>).message.id)
    })
  })
}

describe('redact-message', () => {
  let agent: TestAgentNode
  let wallet: WalletPeer
  let connectionId: string
  let walletConnectionId: string

  beforeAll(async () => {
    agent = await startTestAgentNode()
    wallet = await WalletPeer.create({ label: 'redaction-wallet', logger: createLogger('silent', 'wallet') })
    ;({ connectionId, walletConnectionId } = await connectWallet(agent.node, agent.adminUrl, wallet))
  }, 120_000)

  afterAll(async () => {
    await wallet?.stop()
    await agent?.close()
  })

  /** What the agent stores of received texts: Credo records' and outbox events' contents, by message id. */
  async function stored(): Promise<{ records: Record<string, string>; outbox: Record<string, string> }> {
    const { agent: credo, outbox } = agent.node
    const records = await credo.dependencyManager
      .resolve(DidCommBasicMessageRepository)
      .findByQuery(credo.context, { connectionId, role: DidCommBasicMessageRole.Receiver })
    const events = await outbox.eventsAfterPosition(0, {}, 10_000)
    return {
      records: Object.fromEntries(records.map((record) => [record.threadId!, record.content])),
      outbox: Object.fromEntries(
        events.flatMap((e) =>
          e.event.type === 'message-received' && e.event.message.type === 'text' ? [[e.event.message.id, e.event.message.content]] : [],
        ),
      ),
    }
  }

  it('overwrites the stored text and the outbox event of that message only, once', async () => {
    const secret = `token-${crypto.randomUUID()}`
    const secretId = storedText(agent.node, secret)
    await wallet.sendText(walletConnectionId, secret)
    const keptId = storedText(agent.node, 'an ordinary message')
    await wallet.sendText(walletConnectionId, 'an ordinary message')
    const [id, kept] = [await secretId, await keptId]

    const before = await stored()
    expect(before.records[id]).toBe(secret)
    expect(before.outbox[id]).toBe(secret)

    // Through the tunnel command registry, as the edge sends it.
    const redactMessage = (connection: string, message: string) =>
      redactReceivedMessage(agent.node.agent, agent.node.outbox, connection, message)
    const context = { messages: agent.node.messages, idempotencyKey: 'k-1', commandId: 'c-1', redactMessage }
    expect(await runCommand({ name: 'redact-message', connectionId, messageId: id }, context)).toEqual({ redacted: 2 })

    const after = await stored()
    expect(after.records[id]).toBe(REDACTION_MARKER)
    expect(after.outbox[id]).toBe(REDACTION_MARKER)
    expect(after.records[kept]).toBe('an ordinary message')
    expect(after.outbox[kept]).toBe('an ordinary message')
    expect(JSON.stringify(after)).not.toContain(secret)

    expect(await runCommand({ name: 'redact-message', connectionId, messageId: id }, context)).toEqual({ redacted: 0 })
    await expect(
      runCommand(
        { name: 'redact-message', connectionId, messageId: id },
        { messages: agent.node.messages, idempotencyKey: 'k-2', commandId: 'c-2' },
      ),
    ).rejects.toThrow('redact-message: this agent keeps no message store to redact')
  }, 60_000)
})
