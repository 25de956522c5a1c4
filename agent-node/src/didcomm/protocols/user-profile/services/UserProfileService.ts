/** User profile, stateless: builds profile messages, reports received ones, answers requests with our own profile. */
import { EventEmitter, inject, injectable } from '@credo-ts/core'
import { DidCommOutboundMessageContext, type DidCommInboundMessageContext } from '@credo-ts/didcomm'
import { ProfileMessage, RequestProfileMessage, type ProfileMessageOptions } from '../messages/index.ts'
import { UserProfileEventTypes, type ProfileReceivedEvent, type ProfileRequestedEvent } from '../UserProfileEvents.ts'
import { UserProfileModuleConfig } from '../UserProfileModuleConfig.ts'

@injectable()
export class UserProfileService {
  constructor(
    @inject(EventEmitter) private readonly eventEmitter: EventEmitter,
    @inject(UserProfileModuleConfig) private readonly config: UserProfileModuleConfig,
  ) {}

  createProfile(options: ProfileMessageOptions): ProfileMessage {
    return new ProfileMessage(options)
  }

  createRequestProfile(query?: string[]): RequestProfileMessage {
    return new RequestProfileMessage({ query })
  }

  /** Emits `ProfileReceived`; answers with our profile when asked (`send_back_yours`) and we have one. */
  processProfile(messageContext: DidCommInboundMessageContext<ProfileMessage>): DidCommOutboundMessageContext | undefined {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<ProfileReceivedEvent>(agentContext, {
      type: UserProfileEventTypes.ProfileReceived,
      payload: { connectionId: connection.id, message, profile: message.profileData },
    })
    if (!message.sendBackYours) return undefined
    return this.answer(messageContext, message.threadId)
  }

  /** Emits `ProfileRequested`; answers with our profile when we have one. */
  processRequestProfile(messageContext: DidCommInboundMessageContext<RequestProfileMessage>): DidCommOutboundMessageContext | undefined {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<ProfileRequestedEvent>(agentContext, {
      type: UserProfileEventTypes.ProfileRequested,
      payload: { connectionId: connection.id, message },
    })
    return this.answer(messageContext, message.threadId)
  }

  private answer(messageContext: DidCommInboundMessageContext, threadId: string): DidCommOutboundMessageContext | undefined {
    const profile = this.config.ownProfile
    if (!profile) return undefined
    return new DidCommOutboundMessageContext(this.createProfile({ profile, threadId }), {
      agentContext: messageContext.agentContext,
      connection: messageContext.assertReadyConnection(),
    })
  }
}
