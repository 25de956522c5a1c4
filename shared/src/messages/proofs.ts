/**
 * Identity proofs between controller and user (spec "Message" table; item shapes follow 2060.io's
 * service agent, where the spec is silent): `identity-proof-request` asks the user to present
 * credentials (Aries present-proof v2, AnonCreds format), `identity-proof-submit` reports what
 * the user presented, verified by the agent.
 */
import { z } from 'zod'
import { Claim } from './credentials.ts'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

/**
 * One requested item: a credential of `credentialDefinitionId` whose `attributes` the user reveals.
 * `id` names the item in the submission (the item's index when omitted).
 */
export const RequestedProofItem = z.object({
  id: z.string().min(1).optional(),
  type: z.literal('verifiable-credential'),
  credentialDefinitionId: z.string().min(1),
  attributes: z.array(z.string().min(1)).min(1),
})
export type RequestedProofItem = z.infer<typeof RequestedProofItem>

/** `identity-proof-request`: one proof request covering every item. */
export const IdentityProofRequestMessageBody = SendMessageBase.extend({
  type: z.literal('identity-proof-request'),
  requestedProofItems: z.array(RequestedProofItem).min(1),
})
export type IdentityProofRequestMessageBody = z.infer<typeof IdentityProofRequestMessageBody>

/**
 * One submitted item. `verified` says whether the agent verified the presentation; `claims` are
 * the revealed values (present when verified); `errorCode` says why not (`refused`,
 * `verification-error`, ...; see the README's presentation statuses) with `reason` in words.
 */
export const SubmittedProofItem = z.object({
  id: z.string(),
  type: z.literal('verifiable-credential'),
  proofExchangeId: z.string(),
  verified: z.boolean(),
  claims: z.array(Claim).optional(),
  errorCode: z.string().optional(),
  reason: z.string().optional(),
})
export type SubmittedProofItem = z.infer<typeof SubmittedProofItem>

/** `identity-proof-submit` (in `message-received`); `threadId` is the proof request's thread. */
export const IdentityProofSubmitEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('identity-proof-submit'),
  submittedProofItems: z.array(SubmittedProofItem),
})
export type IdentityProofSubmitEnvelope = z.infer<typeof IdentityProofSubmitEnvelope>
