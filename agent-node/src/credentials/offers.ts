/**
 * Credential offers as invitations (spec "Credential offer"): an issue-credential v2 offer with
 * the AnonCreds format, attached to an out-of-band invitation a wallet with no connection can
 * accept (it connects, then answers the offer on the new connection), plus its short URL.
 * Claims must carry exactly the type's attributes. Once the user answers, the controller gets a
 * `credential-reception` message (`messaging/adapters/credentials.ts`).
 */
import type { Claim } from '@parley/shared'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { createMessageInvitation } from '../didcomm/invitations.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import type { CredentialTypes } from './CredentialTypes.ts'

/** What `POST /v1/credential-offer` returns. */
export interface CredentialOfferInvitation {
  credentialExchangeId: string
  url: string
  shortUrl: string
}

/**
 * Creates the offer and its invitation.
 * @throws UnknownCredentialDefinitionError, ClaimsMismatchError (see `CredentialTypes.checkClaims`).
 */
export async function createCredentialOfferInvitation(
  deps: { agent: DidcommAgent; config: AgentNodeConfig; credentialTypes: CredentialTypes; shortUrls: ShortUrls },
  credentialDefinitionId: string,
  claims: Claim[],
): Promise<CredentialOfferInvitation> {
  await deps.credentialTypes.checkClaims(credentialDefinitionId, claims)
  const { message, credentialExchangeRecord } = await deps.agent.modules.didcomm.credentials.createOffer({
    protocolVersion: 'v2',
    credentialFormats: { anoncreds: { credentialDefinitionId, attributes: claims } },
  })
  const invitation = await createMessageInvitation(deps.agent, deps.config, message)
  return { credentialExchangeId: credentialExchangeRecord.id, url: invitation.url, shortUrl: await deps.shortUrls.create(invitation) }
}
