/**
 * Calls signalling, stateless: Parley passes the messages through to the controller, which owns
 * the call (its media session lives outside DIDComm).
 */
import { EventEmitter, inject, injectable } from '@credo-ts/core'
import type { DidCommInboundMessageContext } from '@credo-ts/didcomm'
import { CallsEventTypes, type CallMessageReceivedEvent } from '../CallsEvents.ts'
import type { CallMessage } from '../messages/index.ts'

@injectable()
export class CallsService {
  constructor(@inject(EventEmitter) private readonly eventEmitter: EventEmitter) {}

  processCallMessage(messageContext: DidCommInboundMessageContext<CallMessage>): undefined {
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<CallMessageReceivedEvent>(messageContext.agentContext, {
      type: CallsEventTypes.CallMessageReceived,
      payload: { connectionId: connection.id, message: messageContext.message },
    })
  }
}
