/**
 * What an agent does with travel documents: ask for the MRZ or the chip's data (verifier side),
 * send them or refuse (holder side). Each resolves with the message sent.
 */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import {
  EMrtdDataMessage,
  EMrtdDataRequestMessage,
  MrtdProblemReportMessage,
  MrzDataMessage,
  MrzDataRequestMessage,
  type MrtdMessage,
  type MrtdRequestOptions,
} from './messages/index.ts'
import type { MrtdProblemReportReason } from './models/MrtdProblemReportReason.ts'

@injectable()
export class MrtdApi {
  constructor(@inject(AgentContext) private readonly agentContext: AgentContext) {}

  requestMrzData(connectionId: string, options: MrtdRequestOptions = {}): Promise<MrzDataRequestMessage> {
    return this.send(connectionId, new MrzDataRequestMessage(options))
  }

  requestEMrtdData(connectionId: string, options: MrtdRequestOptions = {}): Promise<EMrtdDataRequestMessage> {
    return this.send(connectionId, new EMrtdDataRequestMessage(options))
  }

  /** Answers request `threadId` with the scanned MRZ. */
  sendMrzData(connectionId: string, options: { threadId: string; mrzData: string | string[] }): Promise<MrzDataMessage> {
    return this.send(connectionId, new MrzDataMessage(options))
  }

  /** Answers request `threadId` with the chip's data groups (name -> base64). */
  sendEMrtdData(connectionId: string, options: { threadId: string; dataGroups: Record<string, string> }): Promise<EMrtdDataMessage> {
    return this.send(connectionId, new EMrtdDataMessage(options))
  }

  /** Tells the requester that request `threadId` was refused or timed out. */
  sendProblemReport(
    connectionId: string,
    options: { threadId: string; reason: MrtdProblemReportReason; comment?: string },
  ): Promise<MrtdProblemReportMessage> {
    const message = new MrtdProblemReportMessage({ description: { code: options.reason, en: options.comment ?? options.reason } })
    message.setThread({ parentThreadId: options.threadId })
    return this.send(connectionId, message)
  }

  private async send<M extends MrtdMessage>(connectionId: string, message: M): Promise<M> {
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }
}
