/**
 * `POST /v1/credential-offer`, also served as `/v1/invitation/credential-offer` (spec "Credential
 * offer"): an out-of-band invitation carrying an AnonCreds credential offer, and its short URL.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { boundedName, Claim } from '@parley/shared'
import { createCredentialOfferInvitation } from '../../credentials/offers.ts'
import type { AdminDeps } from '../context.ts'
import { credentialErrorResponse } from '../credential-errors.ts'
import { ErrorBody } from '../errors.ts'
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
  createRoute({
    method: 'post',
    path,
    tags: ['credentials'],
    summary: 'Offer a credential through an invitation',
    request: { body: { required: true, content: { 'application/json': { schema: CredentialOfferCreate } } } },
    responses: {
      200: { description: 'The invitation', content: { 'application/json': { schema: CredentialOfferBody } } },
      400: {
        description: 'Invalid body, missing or extra claims; `issues` names them',
        content: { 'application/json': { schema: ErrorBody } },
      },
      404: { description: 'Unknown credential definition', content: { 'application/json': { schema: ErrorBody } } },
    },
  })

export function credentialOfferRoutes(deps: AdminDeps, app: OpenAPIHono) {
  for (const path of ['/v1/credential-offer', '/v1/invitation/credential-offer']) {
    app.openapi(offerRoute(path), async (c) => {
      const { credentialDefinitionId, claims } = c.req.valid('json')
      try {
        return c.json(await createCredentialOfferInvitation(deps, credentialDefinitionId, claims), 200)
      } catch (error) {
        const response = credentialErrorResponse(c, error)
        if (response) return response
        throw error
      }
    })
  }
  return app
}
