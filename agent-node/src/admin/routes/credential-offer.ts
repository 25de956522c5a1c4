/**
 * `POST /v1/credential-offer`, also served as `/v1/invitation/credential-offer` (spec "Credential
 * offer"): an out-of-band invitation carrying an AnonCreds credential offer, and its short URL.
 */
import { z } from '@hono/zod-openapi'
import { boundedName, Claim } from '@parley/shared'
import type { CredentialOfferInvitation } from '../../credentials/offers.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { DidCommVersionField } from '../schemas.ts'

const CredentialOfferCreate = z
  .strictObject({
    credentialDefinitionId: boundedName(2_048),
    claims: z.array(Claim).min(1).max(125).describe('One { name, value } per attribute of the type'),
    didCommVersion: DidCommVersionField,
  })
  .openapi('CredentialOfferCreate')

const CredentialOfferBody = z
  .object({
    credentialExchangeId: z.uuid(),
    url: z.string().describe('Long URL-encoded out-of-band invitation carrying the offer'),
    shortUrl: z.string().describe('{public_url}/s?id=<uuid>; render this one as a QR code'),
  })
  .openapi('CredentialOffer')

const offerRoute = (path: string) =>
  jsonRoute({
    method: 'post',
    path,
    tags: ['credentials'],
    summary: 'Offer a credential through an invitation',
    body: CredentialOfferCreate,
    responses: {
      200: [CredentialOfferBody, 'The invitation'],
      400: 'Invalid body, missing or extra claims; `issues` names them',
      404: 'Unknown credential definition',
    },
  })

/**
 * Makes offer invitations (`credentials/offers.ts`).
 * @throws UnknownCredentialDefinitionError, ClaimsMismatchError.
 */
export type OfferCredential = (credentialDefinitionId: string, claims: Claim[]) => Promise<CredentialOfferInvitation>

/** The credential offer sub-app (both paths), offering through `deps.offer`. */
export function credentialOfferRoutes(deps: { offer: OfferCredential }) {
  const app = adminRouter()
  for (const path of ['/v1/credential-offer', '/v1/invitation/credential-offer']) {
    app.openapi(offerRoute(path), async (c) => {
      const { credentialDefinitionId, claims } = c.req.valid('json')
      return c.json(await deps.offer(credentialDefinitionId, claims), 200)
    })
  }
  return app
}
