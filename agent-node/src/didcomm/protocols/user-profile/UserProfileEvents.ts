/** Events the user-profile module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { ProfileMessage, RequestProfileMessage } from './messages/index.ts'
import type { UserProfileData } from './models/UserProfile.ts'

export enum UserProfileEventTypes {
  /** A peer sent its profile. */
  ProfileReceived = 'ParleyProfileReceived',
  /** A peer asked for ours. */
  ProfileRequested = 'ParleyProfileRequested',
}

/** `profile` is what the message carried, pictures resolved from their attachments. */
export interface ProfileReceivedEvent extends BaseEvent {
  type: typeof UserProfileEventTypes.ProfileReceived
  payload: { connectionId: string; message: ProfileMessage; profile: UserProfileData }
}

export interface ProfileRequestedEvent extends BaseEvent {
  type: typeof UserProfileEventTypes.ProfileRequested
  payload: { connectionId: string; message: RequestProfileMessage }
}
