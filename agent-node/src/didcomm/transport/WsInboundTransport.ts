/**
 * DIDComm v1 inbound over WebSocket on the public port, in place of Credo's
 * `DidCommWsInboundTransport`, which keeps every socket it ever accepted (its `socketIds`), adds
 * no `'error'` listener (one malformed frame then ends the process) and throws from a send
 * callback. Here:
 * - every accepted socket has an `'error'` listener: a frame `ws` refuses (oversize, invalid
 *   UTF-8, unmasked, reserved opcode or bit, bad close code, oversize control frame) closes that
 *   socket with the code `ws` chose and writes one rate-limited log line;
 * - a socket is forgotten when it closes (its transport session with it), and one whose peer
 *   went away without closing (no pong to a ping within a heartbeat) is terminated, so dead
 *   connections do not pile up (WebSocket clients answer pings on their own);
 * - each message is checked like an HTTP body (`envelope.ts`) before Credo sees it; a refused one
 *   closes the socket with 1008 (policy violation, 1009 when too large) and the reason;
 * - accepted envelopes go through the inbox (`didcomm/inbox/`): stored before they are processed,
 *   processed in arrival order, and a socket stops being read (`pause`) while the inbox backlog is
 *   full.
 *
 * Return routing: the socket is the transport session, so replies and queued messages for the
 * connection go back on it while it is open.
 */
import { randomUUID } from 'node:crypto'
import { CredoError, type AgentContext } from '@credo-ts/core'
import {
  DidCommTransportService,
  type DidCommEncryptedMessage,
  type DidCommInboundTransport,
  type DidCommTransportSession,
} from '@credo-ts/didcomm'
import WebSocket, { type RawData, type WebSocketServer } from 'ws'
import type { RateLimitedLogger } from '../../logging/rate-limited.ts'
import type { InboundInbox } from '../inbox/InboundInbox.ts'
import { checkInboundEnvelope, type EnvelopeLimits } from './envelope.ts'

/** Time between pings, and the time a peer has to answer one, in milliseconds. */
export const HEARTBEAT_MS = 30_000

/** Close code for a message refused before decryption (RFC 6455 §7.4.1: policy violation / message too big). */
const CLOSE_POLICY = 1008
const CLOSE_TOO_BIG = 1009

export class WsInboundTransport implements DidCommInboundTransport {
  private readonly sessions = new Map<WebSocket, WsTransportSession>()
  /** Sockets that answered (or opened) since the last heartbeat. */
  private readonly alive = new WeakSet<WebSocket>()
  private onConnection?: (socket: WebSocket) => void
  private heartbeat?: NodeJS.Timeout

  /**
   * @param server the `ws` server the public HTTP server hands its upgrades to (`noServer`, `maxPayload` = `limits.maxBytes`)
   * @param inbox where accepted envelopes are stored before they are processed
   * @param log rate-limited log for what peers cause (socket errors, refused envelopes)
   * @param heartbeatMs time between pings (default HEARTBEAT_MS)
   */
  constructor(
    private readonly server: WebSocketServer,
    private readonly inbox: InboundInbox,
    private readonly limits: EnvelopeLimits,
    private readonly log: RateLimitedLogger,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  /** Sockets open now (closed ones are forgotten at once). */
  get openSockets(): number {
    return this.sessions.size
  }

  async start(agentContext: AgentContext): Promise<void> {
    const transportService = agentContext.dependencyManager.resolve(DidCommTransportService)
    this.onConnection = (socket) => {
      const session = new WsTransportSession(socket)
      this.sessions.set(socket, session)
      this.alive.add(socket)
      socket.on('pong', () => this.alive.add(socket))
      socket.on('error', (error: Error & { code?: string }) => {
        this.log.log(
          'warn',
          `ws-error:${error.code ?? 'other'}`,
          { code: error.code, reason: error.message },
          'DIDComm WebSocket closed on a protocol error',
        )
      })
      socket.on('close', () => {
        this.sessions.delete(socket)
        transportService.removeSession(session)
      })
      socket.on('message', (data: RawData) => {
        const check = checkInboundEnvelope(
          Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]),
          this.limits,
        )
        if (!check.ok) {
          this.log.log('warn', `ws-refused:${check.status}`, { reason: check.reason }, 'refused inbound DIDComm message')
          socket.close(check.status === 413 ? CLOSE_TOO_BIG : CLOSE_POLICY, check.reason.slice(0, 120))
          return
        }
        this.inbox.accept(check.envelope, session).catch((error: unknown) => {
          this.log.log('error', 'ws-inbox-store', { err: error }, 'inbound DIDComm message could not be stored')
        })
        if (this.inbox.full && !session.paused) {
          session.paused = true
          socket.pause()
          this.inbox.onRoom(() => {
            session.paused = false
            socket.resume()
          })
        }
      })
    }
    this.server.on('connection', this.onConnection)
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs)
    this.heartbeat.unref()
  }

  /** Terminates sockets that did not answer the previous ping, pings the others. */
  private beat(): void {
    for (const socket of this.sessions.keys()) {
      if (!this.alive.has(socket)) {
        socket.terminate()
        continue
      }
      this.alive.delete(socket)
      socket.ping()
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat)
    if (this.onConnection) this.server.off('connection', this.onConnection)
    for (const socket of this.sessions.keys()) socket.terminate()
    this.sessions.clear()
  }
}

/** The socket as a Credo transport session (`type` matches Credo's own WebSocket sessions). */
class WsTransportSession implements DidCommTransportSession {
  readonly id = randomUUID()
  readonly type = 'WebSocket'
  /** Reading is paused while the inbox is full. */
  paused = false

  constructor(private readonly socket: WebSocket) {}

  /** Sends `encryptedMessage`; rejects when the socket is not open or the write fails. */
  send(_agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.reject(new CredoError(`${this.type} transport session has been closed.`))
    return new Promise((resolve, reject) =>
      this.socket.send(JSON.stringify(encryptedMessage), (error) =>
        error ? reject(new CredoError(`${this.type} send message failed.`, { cause: error })) : resolve(),
      ),
    )
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close()
  }
}
