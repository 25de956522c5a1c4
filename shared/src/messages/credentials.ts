/**
 * Credential messages between controller and user (spec "Message" table; field shapes the spec
 * leaves open follow 2060.io's service agent): `credential-issuance` and `credential-request`
 * sent by the controller, `credential-reception` reported when the user's answer arrives. On
 * the wire they are Aries issue-credential v2 messages with the AnonCreds format.
 */
import { z } from 'zod'
import { boundedName, MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** One attribute's value, `{ name, value }` (spec "claims"). */
export const Claim = z.strictObject({
  name: boundedName(200),
  value: z.string(),
  /** MIME type of the value (vs-agent's model; issue-credential v2 preview attribute `mime-type`). */
  mimeType: z.string().max(255).optional(),
})
export type Claim = z.infer<typeof Claim>

/**
 * `credential-issuance`: offers the user a credential of `credentialDefinitionId` with `claims`
 * (one per attribute of the type); issued once the user accepts. The user's answer arrives as
 * `credential-reception`.
 */
export const CredentialIssuanceMessageBody = SendMessageBase.extend({
  type: z.literal('credential-issuance'),
  credentialDefinitionId: boundedName(2_048),
  claims: z.array(Claim).min(1).max(125),
})
export type CredentialIssuanceMessageBody = z.infer<typeof CredentialIssuanceMessageBody>

/**
 * `credential-request`: asks the peer (an issuer) for a credential of `credentialDefinitionId`,
 * proposing `claims` about the user when given (issue-credential v2 `propose-credential`).
 */
export const CredentialRequestMessageBody = SendMessageBase.extend({
  type: z.literal('credential-request'),
  credentialDefinitionId: boundedName(2_048),
  claims: z.array(Claim).max(125).optional(),
})
export type CredentialRequestMessageBody = z.infer<typeof CredentialRequestMessageBody>

/**
 * `credential-request` received (in `message-received`): the user proposes a credential
 * (issue-credential v2 `propose-credential`). A `credential-issuance` with this `threadId`
 * answers the proposal. `credentialDefinitionId` is null when the proposal names none.
 */
export const CredentialRequestEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('credential-request'),
  credentialDefinitionId: z.string().nullable(),
  claims: z.array(Claim),
})
export type CredentialRequestEnvelope = z.infer<typeof CredentialRequestEnvelope>

/**
 * How a credential exchange ended for the user: `done` (stored the credential), `declined` (refused
 * the offer), `abandoned` (the exchange failed after the user accepted).
 */
export const CredentialReceptionState = z.enum(['done', 'declined', 'abandoned'])
export type CredentialReceptionState = z.infer<typeof CredentialReceptionState>

/** `credential-reception` (in `message-received`); `threadId` is the credential exchange's thread. */
export const CredentialReceptionEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('credential-reception'),
  state: CredentialReceptionState,
  /** The agent's credential exchange id (the `credentialExchangeId` of an offer). */
  credentialExchangeId: z.string(),
})
export type CredentialReceptionEnvelope = z.infer<typeof CredentialReceptionEnvelope>
