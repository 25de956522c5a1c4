/**
 * The socket a wallet opened for its DID Exchange request is no longer the connection's once the
 * response has left on it.
 *
 * Credo keeps the transport session of an inbound message with return routing, with the keys of
 * that message: the request was addressed to the invitation's key (our public DID's, or an
 * invitation did:key), so the session's sender key is that key. Credo's DID Exchange request
 * handler then ties the session to the new connection, and every later message on the connection
 * goes out on that socket, while it is open, packed from the invitation's key. That suits the
 * response, which the wallet matches by its thread; nothing after it: the wallet knows our new
 * peer DID and finds the connection by its keys, so it drops such a message ("No connection
 * associated with incoming message"). The end-to-end tests lost greetings this way when the
 * socket was still open as the greeting left.
 *
 * So once the response has been sent on a session, the session is untied from the connection.
 * Later messages go out as Credo sends any other (to the wallet's endpoint, or queued for pickup),
 * or on a session the wallet opens with a message of the connection, which Credo ties to it with
 * that message's keys.
 */
import { type AgentContext, type DependencyManager, EventEmitter, type Module } from '@credo-ts/core'
import {
  DidCommConnectionResponseMessage,
  DidCommDidExchangeResponseMessage,
  DidCommEventTypes,
  type DidCommMessageSentEvent,
  DidCommTransportService,
  OutboundMessageSendStatus,
} from '@credo-ts/didcomm'

/** Unties the session a handshake response was sent on from its connection (see the module comment). */
export class ExchangeSessionsModule implements Module {
  register(_dependencyManager: DependencyManager): void {}

  async initialize(agentContext: AgentContext): Promise<void> {
    const transports = agentContext.resolve(DidCommTransportService)
    agentContext.resolve(EventEmitter).on<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, ({ payload }) => {
      const { message: sent, status } = payload
      if (status !== OutboundMessageSendStatus.SentToSession) return
      if (!(sent.message instanceof DidCommDidExchangeResponseMessage || sent.message instanceof DidCommConnectionResponseMessage)) return
      const sessionId = sent.sessionId ?? sent.inboundMessageContext?.sessionId
      const session = sessionId ? transports.findSessionById(sessionId) : undefined
      if (session) session.connectionId = undefined
    })
  }
}
