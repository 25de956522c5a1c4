import { messageHandler } from '../../../messageHandler.ts'
import { MessageReceiptsMessage, RequestReceiptsMessage } from '../messages/index.ts'
import type { ReceiptsService } from '../services/ReceiptsService.ts'

/** Inbound `message-receipts` -> the service. */
export const messageReceiptsHandler = (service: ReceiptsService) =>
  messageHandler([MessageReceiptsMessage], (inbound) => service.processReceipts(inbound))

/** Inbound `request-receipts` -> the service. */
export const requestReceiptsHandler = (service: ReceiptsService) =>
  messageHandler([RequestReceiptsMessage], (inbound) => service.processRequestReceipts(inbound))
