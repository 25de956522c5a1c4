/**
 * The public WebSocket transport's heartbeat, on a transport of its own (heartbeat 100 ms)
 * started on a real agent's context: a peer that vanished without closing (here: a raw TCP client
 * that never answers pings) is terminated and forgotten; a live WebSocket client (it answers pings
 * on its own) stays connected.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { InboundInbox } from '../../src/didcomm/inbox/InboundInbox.ts'
import { DEFAULT_ENVELOPE_LIMITS } from '../../src/didcomm/transport/envelope.ts'
import { WsInboundTransport } from '../../src/didcomm/transport/WsInboundTransport.ts'
import { createLogger } from '../../src/logging/index.ts'
import { RateLimitedLogger } from '../../src/logging/rate-limited.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { eventually } from '../support/conditions.ts'

const HEARTBEAT_MS = 100

describe('public WebSocket heartbeat', () => {
  let agent: TestAgentNode
  const server = createServer()
  const sockets = new WebSocketServer({ noServer: true })
  const dir = mkdtempSync(join(tmpdir(), 'parley-heartbeat-'))
  let database: Database
  let transport: WsInboundTransport
  let port: number

  beforeAll(async () => {
    agent = await startTestAgentNode({}, { label: 'heartbeat' })
    database = await openDatabase(join(dir, 'inbox.sqlite'))
    const inbox = await InboundInbox.open(database, createLogger('silent'), 'test-instance')
    transport = new WsInboundTransport(sockets, inbox, DEFAULT_ENVELOPE_LIMITS, new RateLimitedLogger(createLogger('silent')), HEARTBEAT_MS)
    await transport.start(agent.node.agent.context)
    server.on('upgrade', (request, socket, head) =>
      sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request)),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  }, 120_000)
  afterAll(async () => {
    await transport?.stop()
    await new Promise((resolve) => server.close(resolve))
    await agent?.close()
    await database?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('terminates a peer that stopped answering, keeps one that answers pings', async () => {
    const live = new WebSocket(`ws://127.0.0.1:${port}`)
    await new Promise((resolve) => live.once('open', resolve))
    const silent = connect(port, '127.0.0.1')
    silent.write(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
    // Reads (so pings arrive) but never answers them, like a peer whose network went away.
    silent.on('data', () => {})
    await new Promise((resolve) => silent.once('close', resolve))
    await eventually(() => expect(transport.openSockets).toBe(1))
    expect(live.readyState).toBe(WebSocket.OPEN)
    live.close()
  })
})
