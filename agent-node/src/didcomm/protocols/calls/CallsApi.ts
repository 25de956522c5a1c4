/** What an agent does with calls: offer one, accept, reject or end it. Each resolves with the message sent. */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import { CallAcceptMessage, CallEndMessage, CallOfferMessage, CallRejectMessage, type CallOfferMessageOptions } from './messages/index.ts'

@injectable()
export class CallsApi {
  constructor(@inject(AgentContext) private readonly agentContext: AgentContext) {}

  offer(connectionId: string, options: CallOfferMessageOptions): Promise<CallOfferMessage> {
    return this.send(connectionId, new CallOfferMessage(options))
  }

  /** Accepts the offer `threadId` (its `@id`) with our signalling `parameters`. */
  accept(connectionId: string, options: { threadId: string; parameters: Record<string, unknown> }): Promise<CallAcceptMessage> {
    return this.send(connectionId, new CallAcceptMessage(options))
  }

  reject(connectionId: string, options: { threadId: string }): Promise<CallRejectMessage> {
    return this.send(connectionId, new CallRejectMessage(options))
  }

  end(connectionId: string, options: { threadId: string }): Promise<CallEndMessage> {
    return this.send(connectionId, new CallEndMessage(options))
  }

  private async send<M extends CallOfferMessage | CallAcceptMessage | CallRejectMessage | CallEndMessage>(
    connectionId: string,
    message: M,
  ): Promise<M> {
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }
}
