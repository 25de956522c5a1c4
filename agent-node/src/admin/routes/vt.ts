/** `POST /vt/issue-credential` (spec "Issue credential (W3C-style)"); see `credentials/vt-issue.ts`. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { JsonSchemaCredentialError } from '../../credentials/json-schema-credential.ts'
import { issueFromJsonSchemaCredential } from '../../credentials/vt-issue.ts'
import { HttpUrl } from '@parley/shared'
import type { AdminDeps } from '../context.ts'
import { credentialErrorResponse } from '../credential-errors.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

const VtIssueCredential = z
  .object({
    format: z.literal('anoncreds').describe('Only anoncreds is supported'),
    jsonSchemaCredential: HttpUrl.describe('URL of the JSON Schema Credential defining the attributes'),
    claims: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .describe('`id` (the recipient) and one property per attribute; arrays are stored as JSON text'),
  })
  .openapi('VtIssueCredential')

const VtIssueResult = z
  .object({
    credentialExchangeId: z.uuid(),
    url: z.string().describe('Invitation carrying the offer'),
    shortUrl: z.string(),
  })
  .openapi('VtIssueResult')

const issueRoute = createRoute({
  method: 'post',
  path: '/vt/issue-credential',
  tags: ['credentials'],
  summary: 'Offer an AnonCreds credential whose type a JSON Schema Credential defines',
  request: { body: { required: true, content: { 'application/json': { schema: VtIssueCredential } } } },
  responses: {
    200: { description: 'The offer invitation', content: { 'application/json': { schema: VtIssueResult } } },
    400: { description: 'Invalid body, unusable schema credential, URL the agent may not call, claims not matching', content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'Never in practice: the type is created from the schema', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function vtRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(issueRoute, async (c) => {
    const { jsonSchemaCredential, claims } = c.req.valid('json')
    try {
      return c.json(await issueFromJsonSchemaCredential(deps, jsonSchemaCredential, claims), 200)
    } catch (error) {
      if (error instanceof JsonSchemaCredentialError) return errorResponse(c, 400, 'validation_error', error.message, [{ field: error.field, message: error.message }])
      const response = credentialErrorResponse(c, error, 'jsonSchemaCredential')
      if (response) return response
      throw error
    }
  })
}
