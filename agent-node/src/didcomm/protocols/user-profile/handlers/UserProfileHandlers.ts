import { messageHandler } from '../../../messageHandler.ts'
import { ProfileMessage, RequestProfileMessage } from '../messages/index.ts'
import type { UserProfileService } from '../services/UserProfileService.ts'

/** Inbound `profile` -> the service; its answer (our profile, if asked for) goes back. */
export const profileHandler = (service: UserProfileService) =>
  messageHandler([ProfileMessage], (inbound) => service.processProfile(inbound))

/** Inbound `request-profile` -> the service; its answer (our profile) goes back. */
export const requestProfileHandler = (service: UserProfileService) =>
  messageHandler([RequestProfileMessage], (inbound) => service.processRequestProfile(inbound))
