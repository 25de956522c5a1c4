/**
 * Identity proofs between controller and user (spec "Message" table; item shapes follow 2060.io's
 * service agent, where the spec is silent): `identity-proof-request` asks the user to present
 * credentials (Aries present-proof v2, AnonCreds format), `identity-proof-submit` reports what
 * the user presented, verified by the agent, and `identity-proof-result` is the controller's
 * verdict, which closes the exchange with the user.
 */
import { z } from 'zod'
import { Claim } from './credentials.ts'
import { boundedName, DidCommThreadId, MessageEnvelopeBase, SendMessageBase, uniqueBy } from './common.ts'

/**
 * vs-agent's `requireNonRevocation`: accepted as `false` (its default). Revocation is not
 * supported yet, so `true` is refused rather than dropped: nothing could prove non-revocation.
 */
export const NoRevocation = z.literal(false, { error: 'revocation is not supported: requireNonRevocation can only be false' }).optional()

/** An AnonCreds predicate type (`p_type`): the attribute's integer value compared with `value`. */
export const PredicateType = z.enum(['>=', '>', '<=', '<'])
export type PredicateType = z.infer<typeof PredicateType>

/**
 * An AnonCreds predicate on an integer attribute (`requested_predicates` of the proof request):
 * the user proves `<name> <type> <value>` without revealing the attribute. `value` is a 32-bit
 * signed integer, as AnonCreds encodes integer attributes.
 */
export const Predicate = z.strictObject({
  name: boundedName(200),
  type: PredicateType,
  value: z.number().int().min(-2_147_483_648).max(2_147_483_647),
})
export type Predicate = z.infer<typeof Predicate>

/** Attribute names to reveal: unique, each a bounded name. */
export const AttributeNames = z
  .array(boundedName(200))
  .min(1)
  .max(125)
  .refine((names) => new Set(names).size === names.length, 'attribute names must be unique')

/**
 * One requested credential, as `identity-proof-request` items and `POST /v1/presentation-request`
 * take it: a credential of `credentialDefinitionId` whose `attributes` the user reveals (every
 * attribute of its schema when omitted, as vs-agent does) and whose `predicates` the user proves.
 */
export const RequestedCredentialFields = {
  credentialDefinitionId: boundedName(2_048),
  attributes: AttributeNames.optional(),
  predicates: z.array(Predicate).min(1).max(125).optional(),
}

/**
 * One requested item: a credential (see `RequestedCredentialFields`). `id` names the item in the
 * submission (the item's index when omitted); `description` is shown to the user (the proof
 * request's comment), as in vs-agent.
 */
export const RequestedProofItem = z.strictObject({
  id: boundedName(256).optional(),
  type: z.literal('verifiable-credential'),
  description: z.string().max(1_000).optional(),
  ...RequestedCredentialFields,
})
export type RequestedProofItem = z.infer<typeof RequestedProofItem>

/** The id requested item `index` goes by in the submission: its `id`, or its index when it has none. */
export function requestedProofItemId(item: Pick<RequestedProofItem, 'id'>, index: number): string {
  return item.id ?? String(index)
}

/**
 * `identity-proof-request`: one proof request covering every item. The items' ids (as
 * `requestedProofItemId` gives them) are unique: an item's claims are reported under its id.
 */
export const IdentityProofRequestMessageBody = SendMessageBase.extend({
  type: z.literal('identity-proof-request'),
  requestedProofItems: z
    .array(RequestedProofItem)
    .min(1)
    .max(20)
    .superRefine((items, ctx) =>
      uniqueBy('id', 'identity-proof-submit reports each item by its id, an item without one by its index')(
        items.map((item, index) => ({ id: requestedProofItemId(item, index) })),
        ctx,
      ),
    ),
  /** vs-agent's non-revocation proof; only `false` is accepted: Parley's credentials cannot be revoked yet. */
  requireNonRevocation: NoRevocation,
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
  /** The requested predicates, each proven by the verified presentation (present when verified and requested). */
  predicates: z.array(Predicate).optional(),
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
export const ProofItemResult = z.strictObject({
  id: boundedName(256),
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
  threadId: DidCommThreadId,
  proofItemResults: z.array(ProofItemResult).min(1).max(20),
})
export type IdentityProofResultMessageBody = z.infer<typeof IdentityProofResultMessageBody>
