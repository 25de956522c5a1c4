/**
 * What the public port bounds before authentication, against an in-process agent-node on
 * loopback: recipients per envelope (HTTP and WebSocket), body size while it streams in, message
 * size on WebSocket, and that closed WebSockets are forgotten. A wallet still connects after all
 * of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { chunkedPost } from '../support/chunked-post.ts'
import { bogusEnvelope, recipientsBomb } from '../support/envelopes.ts'
import { eventually } from '../support/conditions.ts'

const MAX_ENVELOPE_BYTES = 256 * 1024

describe('public port limits', () => {
  let agent: TestAgentNode
  let publicUrl: string

  beforeAll(async () => {
    agent = await startTestAgentNode(
      { DIDCOMM_MAX_ENVELOPE_BYTES: String(MAX_ENVELOPE_BYTES), DIDCOMM_MAX_RECIPIENTS: '8' },
      { label: 'limits' },
    )
    publicUrl = `127.0.0.1:${agent.node.publicPort}`
  }, 120_000)
  afterAll(() => agent?.close())

  const post = (body: string) =>
    fetch(`http://${publicUrl}/`, { method: 'POST', headers: { 'content-type': 'application/didcomm-envelope-enc' }, body })

  /** Opens a DIDComm WebSocket, sends `data`, resolves with the close code and reason. */
  const sendOverWs = (data: string | Buffer) =>
    new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const ws = new WebSocket(`ws://${publicUrl}`)
      ws.on('error', reject)
      ws.on('open', () => ws.send(data))
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
    })

  it('refuses an envelope over the recipient limit with 400, over HTTP', async () => {
    const response = await post(bogusEnvelope(9))
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toMatch(/9 recipients; at most 8/)
  })

  it('refuses the recipients bomb (a body full of bogus recipients) with 400 before any key lookup', async () => {
    const { envelope } = recipientsBomb(MAX_ENVELOPE_BYTES)
    const response = await post(envelope)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toMatch(/protected header larger than/)
  })

  it('closes a WebSocket whose envelope is over the recipient limit with 1008 and the reason', async () => {
    const closed = await sendOverWs(bogusEnvelope(9))
    expect(closed.code).toBe(1008)
    expect(closed.reason).toMatch(/at most 8/)
  })

  it('closes a WebSocket with 1009 on a message over the envelope limit', async () => {
    const closed = await sendOverWs(Buffer.alloc(MAX_ENVELOPE_BYTES + 1, 0x20))
    expect(closed.code).toBe(1009)
  })

  it('answers 413 to a chunked body over the limit while it streams, without reading the rest', async () => {
    // Up to 64 MiB, far past the limit: the answer must come long before.
    const { status, written } = await chunkedPost(agent.node.publicPort, '/', 'application/didcomm-envelope-enc', 64 * 1024 * 1024)
    expect(status).toBe(413)
    expect(written).toBeLessThan(64 * 1024 * 1024)
  })

  it('forgets WebSockets once they close', async () => {
    for (let i = 0; i < 50; i++) {
      await new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(`ws://${publicUrl}`)
        ws.on('error', reject)
        ws.on('open', () => ws.close())
        ws.on('close', () => resolve())
      })
    }
    await eventually(() => expect(agent.node.openPublicSockets).toBe(0))
  })

  it('still connects a wallet over DIDComm afterwards', async () => {
    const wallet = await WalletPeer.create({ label: 'limits-wallet', logger: createLogger('silent', 'wallet') })
    try {
      const { connectionId } = await connectWallet(agent.node, agent.adminUrl, wallet)
      expect(connectionId).toBeTruthy()
    } finally {
      await wallet.stop()
    }
  })
})
