/**
 * `POST /v1/presentation-request`, also served as `/v1/invitation/presentation-request` (spec
 * "Presentation request"), in both shapes:
 * - simple: `{ credentialDefinitionId, claims: [attribute names] }`;
 * - with callback: `{ ref, callbackUrl, requestedCredentials: [{ credentialDefinitionId, attributes }] }`.
 * Both answer `{ proofExchangeId, url, shortUrl }`. Statuses reach `callbackUrl` (see
 * `proofs/outcome.ts`); a callback URL the agent may not call is refused here with a 400.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { PresentationRequestInput } from '../../proofs/PresentationRequests.ts'
import { HttpUrl } from '@parley/shared'
import type { AdminDeps } from '../context.ts'
import { credentialErrorResponse } from '../credential-errors.ts'
import { ErrorBody } from '../errors.ts'

const attributeNames = z.array(z.string().min(1)).min(1)

/**
 * Both shapes in one object, so a body that fits neither gets field-level errors rather than a
 * bare "invalid union": simple (`credentialDefinitionId` + `claims`) or with callback
 * (`requestedCredentials`, optional `ref` and `callbackUrl`), never a mix.
 */
const PresentationRequestCreate = z
  .object({
    credentialDefinitionId: z.string().min(1).optional().describe('Simple shape: the definition'),
    claims: attributeNames.optional().describe('Simple shape: attribute names to reveal'),
    ref: z.string().max(500).optional().describe('Flow label chosen by the controller, echoed in every callback'),
    callbackUrl: HttpUrl.optional().describe('Receives the status POSTs'),
    requestedCredentials: z
      .array(z.object({ credentialDefinitionId: z.string().min(1), attributes: attributeNames }))
      .min(1)
      .optional()
      .describe('Callback shape: every credential to present'),
  })
  .strict()
  .superRefine((body, context) => {
    const simple = body.credentialDefinitionId !== undefined || body.claims !== undefined
    if (body.requestedCredentials && simple) {
      context.addIssue({ code: 'custom', path: ['requestedCredentials'], message: 'give either requestedCredentials or credentialDefinitionId with claims, not both' })
    } else if (!body.requestedCredentials) {
      if (body.credentialDefinitionId === undefined) context.addIssue({ code: 'custom', path: ['credentialDefinitionId'], message: 'required (or give requestedCredentials)' })
      if (body.claims === undefined) context.addIssue({ code: 'custom', path: ['claims'], message: 'required (or give requestedCredentials)' })
    }
  })
  .openapi('PresentationRequestCreate')

const PresentationRequestBody = z
  .object({
    proofExchangeId: z.uuid(),
    url: z.string().describe('Long URL-encoded out-of-band invitation carrying the request'),
    shortUrl: z.string().describe('{public_url}/s?id=<uuid>; render this one as a QR code'),
  })
  .openapi('PresentationRequest')

const requestRoute = (path: string) =>
  createRoute({
    method: 'post',
    path,
    tags: ['proofs'],
    summary: 'Request a presentation through an invitation',
    request: { body: { required: true, content: { 'application/json': { schema: PresentationRequestCreate } } } },
    responses: {
      200: { description: 'The invitation', content: { 'application/json': { schema: PresentationRequestBody } } },
      400: { description: 'Invalid body, unknown attributes, or a callback URL the agent may not call', content: { 'application/json': { schema: ErrorBody } } },
      404: { description: 'Unknown credential definition', content: { 'application/json': { schema: ErrorBody } } },
    },
  })

/** Both shapes as one input (the schema guarantees one of them is complete). */
function toInput(body: z.infer<typeof PresentationRequestCreate>): PresentationRequestInput {
  const { ref, callbackUrl, requestedCredentials, credentialDefinitionId, claims } = body
  return { ref, callbackUrl, requestedCredentials: requestedCredentials ?? [{ credentialDefinitionId: credentialDefinitionId!, attributes: claims! }] }
}

export function presentationRequestRoutes(deps: AdminDeps, app: OpenAPIHono) {
  for (const path of ['/v1/presentation-request', '/v1/invitation/presentation-request']) {
    app.openapi(requestRoute(path), async (c) => {
      try {
        return c.json(await deps.presentationRequests.create(toInput(c.req.valid('json'))), 200)
      } catch (error) {
        const response = credentialErrorResponse(c, error)
        if (response) return response
        throw error
      }
    })
  }
  return app
}
