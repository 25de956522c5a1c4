import { CallAcceptMessage, CallEndMessage, CallRejectMessage } from './CallAnswerMessages.ts'
import { CallOfferMessage } from './CallOfferMessage.ts'

export * from './CallAnswerMessages.ts'
export * from './CallOfferMessage.ts'

/** Every message of the calls protocol. */
export const CALL_MESSAGES = [CallOfferMessage, CallAcceptMessage, CallRejectMessage, CallEndMessage] as const
export type CallMessage = InstanceType<(typeof CALL_MESSAGES)[number]>
