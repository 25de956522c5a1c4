import { messageHandler } from '../../../messageHandler.ts'
import { MRTD_MESSAGES } from '../messages/index.ts'
import type { MrtdService } from '../services/MrtdService.ts'

/** Inbound MRTD messages (requests, data, problem reports) -> the service (all handled alike). */
export const mrtdMessageHandler = (service: MrtdService) => messageHandler(MRTD_MESSAGES, (inbound) => service.processMrtdMessage(inbound))
