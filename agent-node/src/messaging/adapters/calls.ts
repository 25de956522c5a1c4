/**
 * `call-offer`, `call-accept`, `call-reject`, `call-end` in both directions: 2060.io calls.
 * An offer's `threadId` becomes its parent thread; the answers' `threadId` is the offer's id
 * (`~thread.thid`). The protocol has no send time, so received envelopes carry the time the agent
 * processed them.
 */
import type { MessageEnvelope } from '@parley/shared'
import {
  CallAcceptMessage,
  CallEndMessage,
  CallOfferMessage,
  CallRejectMessage,
  CallsEventTypes,
  type CallMessage,
  type CallMessageReceivedEvent,
} from '../../didcomm/protocols/calls/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

const optionalDate = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

export const sendCallOffer: MessageSender<'call-offer'> = (body, context) =>
  context.sendDidComm(
    new CallOfferMessage({
      parentThreadId: body.threadId,
      callType: body.callType ?? 'service',
      offerExpirationTime: optionalDate(body.offerExpirationTime),
      offerStartTime: optionalDate(body.offerStartTime),
      description: body.description,
      parameters: body.parameters,
    }),
  )

export const sendCallAccept: MessageSender<'call-accept'> = (body, context) =>
  context.sendDidComm(new CallAcceptMessage({ threadId: body.threadId, parameters: body.parameters }))

export const sendCallReject: MessageSender<'call-reject'> = (body, context) =>
  context.sendDidComm(new CallRejectMessage({ threadId: body.threadId }))

export const sendCallEnd: MessageSender<'call-end'> = (body, context) =>
  context.sendDidComm(new CallEndMessage({ threadId: body.threadId }))

type CallEnvelope = Extract<MessageEnvelope, { type: `call-${string}` }>
/** A call envelope without the fields every envelope has (distributed over the four types). */
type CallFields = CallEnvelope extends infer E
  ? E extends CallEnvelope
    ? Omit<E, 'id' | 'connectionId' | 'timestamp' | 'threadId'>
    : never
  : never

/** The type-specific fields of a received call message's envelope. */
function callFields(message: CallMessage): CallFields {
  if (message instanceof CallOfferMessage) {
    return {
      type: 'call-offer',
      callType: message.callType,
      offerExpirationTime: message.offerExpirationTime?.toISOString(),
      offerStartTime: message.offerStartTime?.toISOString(),
      description: message.description,
      parameters: message.parameters,
    }
  }
  if (message instanceof CallAcceptMessage) return { type: 'call-accept', parameters: message.parameters }
  return { type: message instanceof CallRejectMessage ? 'call-reject' : 'call-end' }
}

/** Call messages from the peer -> `call-*` envelopes. */
export const receiveCalls: MessageReceiver = (agent, receive) => {
  agent.events.on<CallMessageReceivedEvent>(CallsEventTypes.CallMessageReceived, ({ payload: { connectionId, message } }) => {
    receive({
      id: message.id,
      connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: envelopeThreadId(message),
      ...callFields(message),
    })
  })
}
