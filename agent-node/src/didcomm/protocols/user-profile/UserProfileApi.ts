/** What an agent does with user profiles: send its profile, ask for the peer's. */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import type { ProfileMessage, ProfileMessageOptions, RequestProfileMessage } from './messages/index.ts'
import { UserProfileService } from './services/UserProfileService.ts'

@injectable()
export class UserProfileApi {
  constructor(
    @inject(AgentContext) private readonly agentContext: AgentContext,
    @inject(UserProfileService) private readonly service: UserProfileService,
  ) {}

  /** Builds a `profile` message without sending it. */
  create(options: ProfileMessageOptions): ProfileMessage {
    return this.service.createProfile(options)
  }

  /** Sends a `profile` on `connectionId`. @returns the message sent. */
  async send(connectionId: string, options: ProfileMessageOptions): Promise<ProfileMessage> {
    const message = this.service.createProfile(options)
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }

  /** Asks the peer on `connectionId` for its profile (only the `query` fields, if given). */
  async request(connectionId: string, query?: string[]): Promise<RequestProfileMessage> {
    const message = this.service.createRequestProfile(query)
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }
}
