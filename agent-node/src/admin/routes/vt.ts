/**
 * `POST /vt/issue-credential` (spec "Issue credential (W3C-style)"); see `credentials/vt-issue.ts`.
 * Also served as `POST /v1/vt/issue-credential`, vs-agent's path, where the schema credential
 * field is vs-agent's `jsonSchemaCredentialId`; either name is accepted on both paths (one of
 * them, not both). The body is strict: vs-agent's jsonld-only fields are refused, naming them.
 */
import { z } from '@hono/zod-openapi'
import { boundedName, HttpUrl } from '@parley/shared'
import type { CredentialOfferInvitation } from '../../credentials/offers.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

const SchemaCredentialUrl = HttpUrl.max(2_048)

const VtIssueCredential = z
  .strictObject({
    format: z.literal('anoncreds').describe('Only anoncreds is supported'),
    jsonSchemaCredential: SchemaCredentialUrl.optional().describe('URL of the JSON Schema Credential defining the attributes'),
    jsonSchemaCredentialId: SchemaCredentialUrl.optional().describe("vs-agent's name for jsonSchemaCredential"),
    claims: z
      .record(boundedName(200), z.union([z.string(), z.array(z.string())]))
      .describe('`id` (the recipient) and one property per attribute; arrays are stored as JSON text'),
  })
  .superRefine((body, context) => {
    const given = [body.jsonSchemaCredential, body.jsonSchemaCredentialId].filter((url) => url !== undefined).length
    if (given !== 1)
      context.addIssue({
        code: 'custom',
        path: ['jsonSchemaCredential'],
        message: 'give jsonSchemaCredential (or jsonSchemaCredentialId), exactly one',
      })
  })
  .openapi('VtIssueCredential')

const VtIssueResult = z
  .object({
    credentialExchangeId: z.uuid(),
    url: z.string().describe('Invitation carrying the offer'),
    shortUrl: z.string(),
  })
  .openapi('VtIssueResult')

const issueRoute = (path: string) =>
  jsonRoute({
    method: 'post',
    path,
    tags: ['credentials'],
    summary: 'Offer an AnonCreds credential whose type a JSON Schema Credential defines',
    body: VtIssueCredential,
    responses: {
      200: [VtIssueResult, 'The offer invitation'],
      400: 'Invalid body, unusable schema credential, URL the agent may not call, claims not matching',
      404: 'Never in practice: the type is created from the schema',
    },
  })

/**
 * Offers a credential whose type the JSON Schema Credential at `jsonSchemaCredential` defines
 * (`credentials/vt-issue.ts`).
 * @throws InvalidFieldError, JsonSchemaCredentialError, ClaimsMismatchError.
 */
export type IssueFromJsonSchemaCredential = (
  jsonSchemaCredential: string,
  claims: Record<string, string | string[]>,
) => Promise<CredentialOfferInvitation>

/** The W3C-style issuance sub-app (both paths), issuing through `deps.issue`. */
export function vtRoutes(deps: { issue: IssueFromJsonSchemaCredential }) {
  const app = adminRouter()
  for (const path of ['/vt/issue-credential', '/v1/vt/issue-credential']) {
    app.openapi(issueRoute(path), async (c) => {
      const { jsonSchemaCredential, jsonSchemaCredentialId, claims } = c.req.valid('json')
      return c.json(await deps.issue((jsonSchemaCredential ?? jsonSchemaCredentialId)!, claims), 200)
    })
  }
  return app
}
