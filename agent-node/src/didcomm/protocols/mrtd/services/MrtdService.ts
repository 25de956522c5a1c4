/**
 * Travel-document reading, stateless: requests and answers pass through as events. Parsing the
 * MRZ and verifying the chip's data (SOD signatures against CSCA certificates) are not done here.
 */
import { EventEmitter, inject, injectable } from '@credo-ts/core'
import type { DidCommInboundMessageContext } from '@credo-ts/didcomm'
import type { MrtdMessage } from '../messages/index.ts'
import { MrtdEventTypes, type MrtdMessageReceivedEvent } from '../MrtdEvents.ts'

@injectable()
export class MrtdService {
  constructor(@inject(EventEmitter) private readonly eventEmitter: EventEmitter) {}

  processMrtdMessage(messageContext: DidCommInboundMessageContext<MrtdMessage>): undefined {
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<MrtdMessageReceivedEvent>(messageContext.agentContext, {
      type: MrtdEventTypes.MrtdMessageReceived,
      payload: { connectionId: connection.id, message: messageContext.message },
    })
  }
}
