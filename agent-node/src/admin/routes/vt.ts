/**
 * `POST /vt/issue-credential` (spec "Issue credential (W3C-style)"); see `credentials/vt-issue.ts`.
 * Also served as `POST /v1/vt/issue-credential`, vs-agent's path, where the schema credential
 * field is vs-agent's `jsonSchemaCredentialId`; either name is accepted on both paths (one of
 * them, not both). The body is strict: vs-agent's jsonld-only fields are refused, naming them.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { boundedName, HttpUrl } from '@parley/shared'
import { JsonSchemaCredentialError } from '../../credentials/json-schema-credential.ts'
import { issueFromJsonSchemaCredential } from '../../credentials/vt-issue.ts'
import type { AdminDeps } from '../context.ts'
import { credentialErrorResponse } from '../credential-errors.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

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
  createRoute({
    method: 'post',
    path,
    tags: ['credentials'],
    summary: 'Offer an AnonCreds credential whose type a JSON Schema Credential defines',
    request: { body: { required: true, content: { 'application/json': { schema: VtIssueCredential } } } },
    responses: {
      200: { description: 'The offer invitation', content: { 'application/json': { schema: VtIssueResult } } },
      400: {
        description: 'Invalid body, unusable schema credential, URL the agent may not call, claims not matching',
        content: { 'application/json': { schema: ErrorBody } },
      },
      404: {
        description: 'Never in practice: the type is created from the schema',
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  })

export function vtRoutes(deps: AdminDeps, app: OpenAPIHono) {
  for (const path of ['/vt/issue-credential', '/v1/vt/issue-credential']) {
    app.openapi(issueRoute(path), async (c) => {
      const { jsonSchemaCredential, jsonSchemaCredentialId, claims } = c.req.valid('json')
      try {
        return c.json(await issueFromJsonSchemaCredential(deps, (jsonSchemaCredential ?? jsonSchemaCredentialId)!, claims), 200)
      } catch (error) {
        if (error instanceof JsonSchemaCredentialError)
          return errorResponse(c, 400, 'validation_error', error.message, [{ field: error.field, message: error.message }])
        const response = credentialErrorResponse(c, error, 'jsonSchemaCredential')
        if (response) return response
        throw error
      }
    })
  }
  return app
}
