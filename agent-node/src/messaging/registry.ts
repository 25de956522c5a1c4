/**
 * Every message type, as a registry (a new type is one new entry, never another branch
 * in a long if/else):
 * - `senders`: `type -> send` for the types the controller sends through `POST /v1/message`;
 * - `receivers`: one subscription per protocol, turning what a peer sends into `message-received`
 *   envelopes; each received message is also acknowledged with a `received` receipt;
 * - `recoveries`: for the protocols whose received messages leave a record, how start-up recovery
 *   finds them (`received.ts`).
 * Each protocol's pair lives in `types/<protocol>.ts`.
 */
import type { SendMessageBody, SendMessageType } from '@parley/shared'
import type { MessageReceiver, MessageRecovery, MessageSender, SendContext } from './contract.ts'
import { acknowledged } from './acknowledge.ts'
import { receiveActionMenu, sendContextualMenuUpdate } from './adapters/action-menu.ts'
import { receiveCalls, sendCallAccept, sendCallEnd, sendCallOffer, sendCallReject } from './adapters/calls.ts'
import {
  receiveCredentialProposal,
  receiveCredentialReception,
  sendCredentialIssuance,
  sendCredentialRequest,
} from './adapters/credentials.ts'
import { sendInvitation } from './adapters/invitation.ts'
import { receiveMedia, sendMedia } from './adapters/media.ts'
import { receiveMrtd, sendEMrtdDataRequest, sendMrzDataRequest } from './adapters/mrtd.ts'
import { receiveProfile, sendProfile } from './adapters/profile.ts'
import { receiveIdentityProofSubmit, sendIdentityProofRequest, sendIdentityProofResult } from './adapters/proofs.ts'
import { receiveMenuSelect, sendMenuDisplay } from './adapters/question-answer.ts'
import { receiveReactions, sendReaction, sendReceipts } from './adapters/receipts.ts'
import { receiveTerminateConnection, sendTerminateConnection } from './adapters/terminate-connection.ts'
import { receiveText, recoverText, sendText } from './adapters/text.ts'

export type { MessageReceiver, MessageRecovery, MessageSender, SendContext } from './contract.ts'

export const senders: { [T in SendMessageType]: MessageSender<T> } = {
  text: sendText,
  media: sendMedia,
  profile: sendProfile,
  'menu-display': sendMenuDisplay,
  'contextual-menu-update': sendContextualMenuUpdate,
  'terminate-connection': sendTerminateConnection,
  'credential-issuance': sendCredentialIssuance,
  'credential-request': sendCredentialRequest,
  'identity-proof-request': sendIdentityProofRequest,
  'identity-proof-result': sendIdentityProofResult,
  invitation: sendInvitation,
  'call-offer': sendCallOffer,
  'call-accept': sendCallAccept,
  'call-reject': sendCallReject,
  'call-end': sendCallEnd,
  'mrz-data-request': sendMrzDataRequest,
  'emrtd-data-request': sendEMrtdDataRequest,
  receipts: sendReceipts,
  reaction: sendReaction,
}

/**
 * Receivers of messages a user sends get a `received` receipt sent back (`acknowledged`); events
 * derived from protocol state (a hang-up, a credential or proof exchange's outcome) do not.
 */
export const receivers: readonly MessageReceiver[] = [
  ...[receiveText, receiveMedia, receiveProfile, receiveMenuSelect, receiveActionMenu, receiveCalls, receiveMrtd, receiveReactions].map(
    acknowledged,
  ),
  receiveTerminateConnection,
  receiveCredentialReception,
  receiveCredentialProposal,
  receiveIdentityProofSubmit,
]

/** The received messages storage holds, per protocol that keeps them (the others: see `MessageRecovery`). */
export const recoveries: readonly MessageRecovery[] = [recoverText]

/** Sends `body` with the sender registered for its type. */
export function sendMessage(body: SendMessageBody, context: SendContext): Promise<void> {
  const send = senders[body.type] as MessageSender<typeof body.type>
  return send(body, context)
}
