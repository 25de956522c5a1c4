/**
 * Credential exchanges (vs-agent's routes): `GET /v1/credential-exchanges` and `GET
 * /v1/credential-exchanges/{credentialExchangeId}`, over every issue-credential exchange
 * (offers by invitation or message, proposals from users).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { Claim } from '@parley/shared'
import { credentialExchangeView } from '../../credentials/exchanges.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'
import { jsonResponse } from '../schemas.ts'

const CredentialExchangeBody = z
  .object({
    credentialExchangeId: z.uuid(),
    connectionId: z.uuid().nullable(),
    role: z.string().describe('issuer or holder'),
    state: z.string().describe('issue-credential v2 state: offer-sent, request-received, credential-issued, done, abandoned, ...'),
    threadId: z.string(),
    credentialDefinitionId: z.string().nullable(),
    claims: z.array(Claim).describe('The offered (or proposed) attributes'),
    errorMessage: z.string().nullable(),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('CredentialExchange')

const IdParam = z.object({ credentialExchangeId: z.uuid().openapi({ param: { name: 'credentialExchangeId', in: 'path' } }) })

const list = createRoute({
  method: 'get',
  path: '/v1/credential-exchanges',
  tags: ['credentials'],
  summary: 'List credential exchanges, newest first',
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(z.array(CredentialExchangeBody), 'Every credential exchange'),
    400: jsonResponse(ErrorBody, 'Unknown query parameter'),
  },
})
const get = createRoute({
  method: 'get',
  path: '/v1/credential-exchanges/{credentialExchangeId}',
  tags: ['credentials'],
  summary: 'Get one credential exchange',
  request: { params: IdParam },
  responses: {
    200: jsonResponse(CredentialExchangeBody, 'The exchange'),
    400: jsonResponse(ErrorBody, 'Invalid id'),
    404: jsonResponse(ErrorBody, 'No such credential exchange'),
  },
})

export function credentialExchangeRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const { agent } = deps
  return app
    .openapi(list, async (c) => {
      const records = await agent.modules.didcomm.credentials.getAll()
      records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      return c.json(await Promise.all(records.map((record) => credentialExchangeView(agent, record))), 200)
    })
    .openapi(get, async (c) => {
      const { credentialExchangeId } = c.req.valid('param')
      const record = await agent.modules.didcomm.credentials.findById(credentialExchangeId)
      return record
        ? c.json(await credentialExchangeView(agent, record), 200)
        : errorResponse(c, 404, 'not_found', `credential exchange '${credentialExchangeId}' not found`)
    })
}
