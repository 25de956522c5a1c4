/**
 * DIDComm v1 inbound over WebSocket on the public server's socket server, in place of Credo's
 * `DidCommWsInboundTransport`: every envelope goes through the inbox (`didcomm/inbox/`), stored
 * before it is processed, and a socket stops being read (`pause`) while the inbox backlog is full.
 * A frame that is not a DIDComm envelope is logged and ignored; the socket stays open.
 */
import { randomUUID } from 'node:crypto'
import { CredoError, type AgentContext } from '@credo-ts/core'
import {
  DidCommTransportService,
  isValidJweStructure,
  type DidCommEncryptedMessage,
  type DidCommInboundTransport,
  type DidCommTransportSession,
} from '@credo-ts/didcomm'
import WebSocket, { type WebSocketServer } from 'ws'
import type { InboundInbox } from '../inbox/InboundInbox.ts'

export class WsInboundTransport implements DidCommInboundTransport {
  constructor(
    private readonly socketServer: WebSocketServer,
    private readonly inbox: InboundInbox,
  ) {}

  async start(agentContext: AgentContext): Promise<void> {
    const transportService = agentContext.dependencyManager.resolve(DidCommTransportService)
    const logger = agentContext.config.logger
    this.socketServer.on('connection', (socket: WebSocket) => {
      const session = new WebSocketSession(socket)
      socket.on('error', (error) => logger.debug('inbound WebSocket error', { error: error.message }))
      socket.on('close', () => transportService.removeSession(session))
      socket.on('message', (data: WebSocket.RawData) => {
        let envelope: unknown
        try {
          envelope = JSON.parse(data.toString())
        } catch {
          envelope = undefined
        }
        if (!isValidJweStructure(envelope)) {
          logger.warn('inbound WebSocket frame is not a DIDComm envelope; ignored')
          return
        }
        this.inbox.accept(envelope as DidCommEncryptedMessage, session).catch((error: unknown) => {
          logger.error('inbound DIDComm message could not be stored', { error })
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
    })
  }

  async stop(): Promise<void> {
    // the socket server belongs to the public server, which closes it
  }
}

/** A return-route session on one inbound socket. */
class WebSocketSession implements DidCommTransportSession {
  readonly id = randomUUID()
  readonly type = 'WebSocket'
  /** Reading is paused while the inbox is full. */
  paused = false

  constructor(private readonly socket: WebSocket) {}

  async send(_agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) throw new CredoError('WebSocket transport session has been closed.')
    await new Promise<void>((resolve, reject) =>
      this.socket.send(JSON.stringify(encryptedMessage), (error) => (error ? reject(new CredoError('WebSocket send failed', { cause: error })) : resolve())),
    )
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close()
  }
}
