/**
 * Travel documents (2060.io MRTD): `mrz-data-request` / `emrtd-data-request` out;
 * `mrz-data-submit` / `emrtd-data-submit` in, from the wallet's data (`submitted`) or its problem
 * report (`declined`, `timeout`). A request's `threadId` becomes its parent thread; a submit's
 * `threadId` is the request's id. Requests a peer sends us are not reported (no Parley flow
 * answers them). The protocol has no send time: envelopes carry the processing time.
 */
import type { MessageEnvelope, MrtdSubmitState } from '@parley/shared'
import {
  EMrtdDataMessage,
  EMrtdDataRequestMessage,
  MrtdEventTypes,
  MrtdProblemReportMessage,
  MrtdProblemReportReason,
  MrzDataMessage,
  MrzDataRequestMessage,
  type MrtdMessage,
  type MrtdMessageReceivedEvent,
} from '../../didcomm/protocols/mrtd/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

export const sendMrzDataRequest: MessageSender<'mrz-data-request'> = (body, context) =>
  context.sendDidComm(new MrzDataRequestMessage({ parentThreadId: body.threadId }))

export const sendEMrtdDataRequest: MessageSender<'emrtd-data-request'> = (body, context) =>
  context.sendDidComm(new EMrtdDataRequestMessage({ parentThreadId: body.threadId }))

/** What each problem-report code reports: which submit type, in which state. */
const PROBLEMS: Record<MrtdProblemReportReason, { type: 'mrz-data-submit' | 'emrtd-data-submit'; state: MrtdSubmitState }> = {
  [MrtdProblemReportReason.MrzRefused]: { type: 'mrz-data-submit', state: 'declined' },
  [MrtdProblemReportReason.MrzTimeout]: { type: 'mrz-data-submit', state: 'timeout' },
  [MrtdProblemReportReason.EMrtdRefused]: { type: 'emrtd-data-submit', state: 'declined' },
  [MrtdProblemReportReason.EMrtdTimeout]: { type: 'emrtd-data-submit', state: 'timeout' },
}

type SubmitFields =
  | Pick<Extract<MessageEnvelope, { type: 'mrz-data-submit' }>, 'type' | 'state' | 'mrzData'>
  | Pick<Extract<MessageEnvelope, { type: 'emrtd-data-submit' }>, 'type' | 'state' | 'dataGroups'>

/** The submit-specific fields a received MRTD message reports, or undefined when it reports nothing. */
function submitFields(message: MrtdMessage): SubmitFields | undefined {
  if (message instanceof MrzDataMessage) return { type: 'mrz-data-submit', state: 'submitted', mrzData: { raw: message.mrzData } }
  if (message instanceof EMrtdDataMessage) return { type: 'emrtd-data-submit', state: 'submitted', dataGroups: { raw: message.dataGroups } }
  if (message instanceof MrtdProblemReportMessage) return PROBLEMS[message.description.code as MrtdProblemReportReason]
  return undefined
}

/** MRZ / eMRTD data and MRTD problem reports from the peer -> `*-submit` envelopes. */
export const receiveMrtd: MessageReceiver = (agent, receive) => {
  agent.events.on<MrtdMessageReceivedEvent>(MrtdEventTypes.MrtdMessageReceived, ({ payload: { connectionId, message } }) => {
    const fields = submitFields(message)
    if (!fields) return
    receive({ id: message.id, connectionId, timestamp: Math.floor(Date.now() / 1000), threadId: envelopeThreadId(message), ...fields })
  })
}
