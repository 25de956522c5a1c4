import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { HANDSHAKE_HEADERS, replacingNonce } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { tunnelGateway } from '../src/bindings.ts'
import { CLOSE_REPLACED } from '../src/tunnel-gateway/index.ts'
import { WRITE_BEHIND_MS } from '../src/tunnel-gateway/write-behind.ts'
import { signedHeaders, sendTextCommand, TestAgent, tunnelRequest } from './support/agent.ts'

async function refusal(headers: Record<string, string>) {
  const response = await exports.default.fetch(tunnelRequest(headers))
  return { status: response.status, body: await response.json(), webSocket: response.webSocket }
}

describe('tunnel handshake', () => {
  it('accepts a correctly signed, fresh handshake', async () => {
    const response = await exports.default.fetch(tunnelRequest(await signedHeaders()))
    expect(response.status).toBe(101)
    expect(response.webSocket).not.toBeNull()
    response.webSocket?.accept()
    response.webSocket?.close(1000, 'done')
  })

  it('refuses missing headers', async () => {
    expect(await refusal({})).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'missing-headers' }, webSocket: null })
    const { [HANDSHAKE_HEADERS.signature]: _, ...unsigned } = await signedHeaders()
    expect((await refusal(unsigned)).body).toEqual({ error: 'unauthorized', reason: 'missing-headers' })
  })

  it('refuses a handshake signed with another secret', async () => {
    expect(await refusal(await signedHeaders('not-the-secret'))).toEqual({
      status: 401,
      body: { error: 'unauthorized', reason: 'bad-signature' },
      webSocket: null,
    })
  })

  it('refuses a stale timestamp', async () => {
    const tenMinutesAgo = Date.now() - 10 * 60_000
    expect(await refusal(await signedHeaders(undefined, tenMinutesAgo))).toEqual({
      status: 401,
      body: { error: 'unauthorized', reason: 'stale-timestamp' },
      webSocket: null,
    })
  })

  it('refuses a nonce that was used before', async () => {
    const headers = await signedHeaders()
    const first = await exports.default.fetch(tunnelRequest(headers))
    expect(first.status).toBe(101)
    first.webSocket?.accept()
    first.webSocket?.close(1000, 'done')
    expect(await refusal(headers)).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'replayed-nonce' }, webSocket: null })
  })

  it('refuses every agent with 503 when TUNNEL_SECRET is not configured', async () => {
    const response = await env.UNCONFIGURED.fetch(tunnelRequest(await signedHeaders()))
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ error: 'tunnel-disabled', reason: 'TUNNEL_SECRET is not configured' })
  })

  it("keeps one agent socket: a new authenticated socket replaces the old one, whose close names the new one's nonce", async () => {
    const first = await TestAgent.connect()
    const headers = await signedHeaders()
    const second = await exports.default.fetch(tunnelRequest(headers))
    second.webSocket?.accept()
    const closed = await first.closed
    expect(closed.code).toBe(CLOSE_REPLACED)
    // agent-node tells its own late handshake from another client's by this nonce
    expect(replacingNonce(closed.reason)).toBe(headers[HANDSHAKE_HEADERS.nonce])
    second.webSocket?.close(1000, 'done')
  })

  it('keeps one socket per agent-node instance: only the same instance is replaced', async () => {
    const a = await TestAgent.connect({ instance: 'node-a' })
    const b = await TestAgent.connect({ instance: 'node-b' })
    const aAgain = await TestAgent.connect({ instance: 'node-a' })
    expect((await a.closed).code).toBe(CLOSE_REPLACED)
    // node-b's socket is still open: it gets the answer to its stats request
    const id = crypto.randomUUID()
    b.sendRaw(JSON.stringify({ kind: 'stats-request', id }))
    expect(await b.next((frame) => frame.kind === 'stats' && frame.id === id)).toMatchObject({ kind: 'stats' })
    await aAgain.close()
    await b.close()
  })

  it('sends a command not answered by an instance that went away to another instance', async () => {
    const agents = [
      await TestAgent.connect({ instance: 'node-a', confirmCommands: false }),
      await TestAgent.connect({ instance: 'node-b', confirmCommands: false }),
    ]
    const connectionId = crypto.randomUUID()
    const frame = sendTextCommand(connectionId, 'to whichever is alive')
    await tunnelGateway(env).sendCommand(frame)
    const gotIt = await Promise.race(
      agents.map(async (agent) => {
        await agent.command(connectionId, frame.idempotencyKey)
        return agent
      }),
    )
    const other = agents.find((agent) => agent !== gotIt)!
    expect(other.frames.some((f) => f.kind === 'command' && f.id === frame.id)).toBe(false) // sent down one tunnel
    await gotIt.close() // gone without a command-result
    expect(await other.command(connectionId, frame.idempotencyKey)).toEqual(frame)
    other.sendRaw(JSON.stringify({ kind: 'command-result', id: frame.id, ok: true, result: { id: crypto.randomUUID() } }))
    await other.close()
  })

  it('sends an answered command no more, and deletes its outbox row with the next write-behind flush', async () => {
    const agent = await TestAgent.connect({ instance: 'node-s', confirmCommands: false })
    const connectionId = crypto.randomUUID()
    const answered = sendTextCommand(connectionId, 'answered')
    const unanswered = sendTextCommand(connectionId, 'not answered')
    await tunnelGateway(env).sendCommand(answered)
    await tunnelGateway(env).sendCommand(unanswered)
    await agent.command(connectionId, unanswered.idempotencyKey)
    agent.sendRaw(JSON.stringify({ kind: 'command-result', id: answered.id, ok: true, result: { id: crypto.randomUUID() } }))
    // frames are handled in order: once the stats come, the result was
    const statsId = crypto.randomUUID()
    agent.sendRaw(JSON.stringify({ kind: 'stats-request', id: statsId }))
    await agent.next((frame) => frame.kind === 'stats' && frame.id === statsId)

    // the same instance again: it gets the command still owed, in the order queued, and not the answered one
    const again = await TestAgent.connect({ instance: 'node-s', confirmCommands: false })
    expect(await again.command(connectionId, unanswered.idempotencyKey)).toEqual(unanswered)
    expect(again.frames.some((frame) => frame.kind === 'command' && frame.id === answered.id)).toBe(false)
    const rowOf = (commandId: string) =>
      runInDurableObject(tunnelGateway(env), (_instance, state) =>
        state.storage.sql.exec('SELECT command_id FROM outbox WHERE command_id = ?', commandId).toArray(),
      )
    await expect.poll(() => rowOf(answered.id), { timeout: WRITE_BEHIND_MS + 4_000 }).toEqual([])
    expect(await rowOf(unanswered.id)).toEqual([{ command_id: unanswered.id }])
    again.sendRaw(JSON.stringify({ kind: 'command-result', id: unanswered.id, ok: true, result: { id: crypto.randomUUID() } }))
    await again.close()
  })
})
