import { EMrtdDataMessage, MrzDataMessage } from './MrtdDataMessages.ts'
import { MrtdProblemReportMessage } from './MrtdProblemReportMessage.ts'
import { EMrtdDataRequestMessage, MrzDataRequestMessage } from './MrtdRequestMessages.ts'

export * from './MrtdDataMessages.ts'
export * from './MrtdProblemReportMessage.ts'
export * from './MrtdRequestMessages.ts'

/** Every message of the MRTD protocol. */
export const MRTD_MESSAGES = [
  MrzDataRequestMessage,
  MrzDataMessage,
  EMrtdDataRequestMessage,
  EMrtdDataMessage,
  MrtdProblemReportMessage,
] as const
export type MrtdMessage = InstanceType<(typeof MRTD_MESSAGES)[number]>
