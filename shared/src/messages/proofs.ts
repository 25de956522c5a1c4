/**
 * Identity proofs between controller and user (spec "Message" table; item shapes follow 2060.io's
 * service agent, where the spec is silent): `identity-proof-request` asks the user to present
 * credentials (Aries present-proof v2, AnonCreds format), `identity-proof-submit` reports what
 * the user presented, verified by the agent, and `identity-proof-result` is the controller's
 * verdict, which closes the exchange with the user.
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
 * `verification-error`, ...; see docs/credentials.md, presentation callbacks) with `reason` in words.
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

/**
 * The controller's verdict on one submitted item: `ok` accepts it, `error` rejects it
 * (`description` says why, shown to the user). Shape as in 2060.io's service agent.
 */
export const ProofItemResult = z.object({
  id: z.string().min(1),
  type: z.literal('verifiable-credential'),
  code: z.enum(['ok', 'error']),
  description: z.string().min(1).max(1_000).optional(),
})
export type ProofItemResult = z.infer<typeof ProofItemResult>

/**
 * `identity-proof-result`: answers an `identity-proof-submit` (its `threadId` is the submit's
 * `threadId`, the proof exchange's thread). Every item `ok` -> present-proof v2 `ack`; any
 * `error` -> present-proof v2 `problem-report` carrying the descriptions.
 */
export const IdentityProofResultMessageBody = SendMessageBase.extend({
  type: z.literal('identity-proof-result'),
  threadId: z.string().min(1),
  proofItemResults: z.array(ProofItemResult).min(1),
})
export type IdentityProofResultMessageBody = z.infer<typeof IdentityProofResultMessageBody>
