import { messageHandler } from '../../../messageHandler.ts'
import { CALL_MESSAGES } from '../messages/index.ts'
import type { CallsService } from '../services/CallsService.ts'

/** Inbound call-offer / call-accept / call-reject / call-end -> the service (all four are handled alike). */
export const callMessageHandler = (service: CallsService) => messageHandler(CALL_MESSAGES, (inbound) => service.processCallMessage(inbound))
