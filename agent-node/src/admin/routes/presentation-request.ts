/**
 * `POST /v1/presentation-request`, also served as `/v1/invitation/presentation-request` (spec
 * "Presentation request"), in both shapes:
 * - simple: `{ credentialDefinitionId, claims: [attribute names] }`;
 * - with callback: `{ ref, callbackUrl, requestedCredentials: [{ credentialDefinitionId, attributes?, predicates? }] }`.
 * Predicates (`{ name, type: '>=' | '>' | '<=' | '<', value }` on integer attributes) are carried
 * into the proof request's `requested_predicates`, verified, and listed in the `ok` callback.
 * Every object of the body is strict: an unknown field anywhere is a 400 naming it.
 * Both answer `{ proofExchangeId, url, shortUrl }`. Statuses reach `callbackUrl` (see
 * `identity-proofs/outcome.ts`); a callback URL the agent may not call is refused here with a 400.
 */
import { z } from '@hono/zod-openapi'
import { AttributeNames, boundedName, HttpUrl, NoRevocation, Predicate, RequestedCredentialFields } from '@parley/shared'
import { unsafeUrlAsField } from '../../errors/index.ts'
import type { PresentationRequestInput, PresentationRequests } from '../../identity-proofs/PresentationRequests.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { DidCommVersionField } from '../schemas.ts'

/**
 * Both shapes in one object, so a body that fits neither gets field-level errors rather than a
 * bare "invalid union": simple (`credentialDefinitionId` + `claims`) or with callback
 * (`requestedCredentials`, optional `ref` and `callbackUrl`), never a mix.
 */
const PresentationRequestCreate = z
  .strictObject({
    credentialDefinitionId: boundedName(2_048).optional().describe('Simple shape: the definition'),
    claims: AttributeNames.optional().describe('Simple shape: attribute names to reveal'),
    ref: boundedName(500).optional().describe('Flow label chosen by the controller, echoed in every callback'),
    callbackUrl: HttpUrl.max(2_048).optional().describe('Receives the status POSTs'),
    requestedCredentials: z
      .array(z.strictObject(RequestedCredentialFields))
      .min(1)
      .max(20)
      .optional()
      .describe(
        'Callback shape: every credential to present; `attributes` defaults to all of the schema, `predicates` are proven without revealing',
      ),
    predicates: z
      .array(Predicate)
      .min(1)
      .max(125)
      .optional()
      .describe('Simple shape: predicates to prove, such as { name: "age", type: ">=", value: 18 }'),
    requireNonRevocation: NoRevocation.describe('vs-agent field; only false: revocation is not supported yet'),
    didCommVersion: DidCommVersionField,
  })
  .superRefine((body, context) => {
    const simple = body.credentialDefinitionId !== undefined || body.claims !== undefined || body.predicates !== undefined
    if (body.requestedCredentials && simple) {
      context.addIssue({
        code: 'custom',
        path: ['requestedCredentials'],
        message: 'give either requestedCredentials or credentialDefinitionId with claims, not both',
      })
    } else if (!body.requestedCredentials) {
      if (body.credentialDefinitionId === undefined)
        context.addIssue({ code: 'custom', path: ['credentialDefinitionId'], message: 'required (or give requestedCredentials)' })
      if (body.claims === undefined && body.predicates === undefined)
        context.addIssue({ code: 'custom', path: ['claims'], message: 'required (or give predicates, or requestedCredentials)' })
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
  jsonRoute({
    method: 'post',
    path,
    tags: ['proofs'],
    summary: 'Request a presentation through an invitation',
    body: PresentationRequestCreate,
    responses: {
      200: [PresentationRequestBody, 'The invitation'],
      400: 'Invalid body, unknown attributes, or a callback URL the agent may not call',
      404: 'Unknown credential definition',
    },
  })

/**
 * Both shapes as one input (the schema guarantees one of them is complete); errors about the
 * simple shape's entry name its own fields, `claims` and `predicates`.
 */
function toInput(body: z.infer<typeof PresentationRequestCreate>): PresentationRequestInput {
  const { ref, callbackUrl, requestedCredentials, credentialDefinitionId, claims, predicates } = body
  if (requestedCredentials) return { ref, callbackUrl, requestedCredentials }
  return {
    ref,
    callbackUrl,
    requestedCredentials: [{ credentialDefinitionId: credentialDefinitionId!, attributes: claims, predicates }],
    fields: [{ attributes: 'claims', predicates: 'predicates' }],
  }
}

/** The presentation request sub-app (both paths) over `deps.presentationRequests`; a refused `callbackUrl` is a 400 naming it. */
export function presentationRequestRoutes(deps: { presentationRequests: Pick<PresentationRequests, 'create'> }) {
  const app = adminRouter()
  for (const path of ['/v1/presentation-request', '/v1/invitation/presentation-request']) {
    app.openapi(requestRoute(path), async (c) =>
      c.json(await deps.presentationRequests.create(toInput(c.req.valid('json'))).catch(unsafeUrlAsField('callbackUrl')), 200),
    )
  }
  return app
}
