/**
 * Presentation exchanges (vs-agent's routes): `GET /v1/presentations`, `GET
 * /v1/presentations/{proofExchangeId}` and `DELETE /v1/presentations/{proofExchangeId}`, over
 * every proof exchange (invitation flows and `identity-proof-request` messages alike).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { Claim } from '@parley/shared'
import { deletePresentation, presentationView } from '../../proofs/presentations.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'
import { jsonResponse } from '../schemas.ts'

const PresentationBody = z
  .object({
    proofExchangeId: z.uuid(),
    connectionId: z.uuid().nullable(),
    state: z.string().describe('present-proof v2 state: request-sent, presentation-received, done, abandoned, ...'),
    verified: z.boolean().describe('The presentation verified (meaningful once one arrived)'),
    threadId: z.string(),
    requestedCredentials: z.array(
      z.object({
        id: z.string(),
        credentialDefinitionId: z.string(),
        attributes: z.array(z.string()),
        predicates: z.array(z.object({ name: z.string(), type: z.string(), value: z.number() })).optional(),
      }),
    ),
    claims: z.array(Claim).describe('Revealed attributes, once a presentation arrived'),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('Presentation')

const IdParam = z.object({ proofExchangeId: z.uuid().openapi({ param: { name: 'proofExchangeId', in: 'path' } }) })
const errors = { 400: jsonResponse(ErrorBody, 'Invalid id or query'), 404: jsonResponse(ErrorBody, 'No such presentation exchange') }

const list = createRoute({
  method: 'get',
  path: '/v1/presentations',
  tags: ['proofs'],
  summary: 'List presentation exchanges, newest first',
  request: { query: z.strictObject({}) },
  responses: { 200: jsonResponse(z.array(PresentationBody), 'Every presentation exchange'), 400: errors[400] },
})
const get = createRoute({
  method: 'get',
  path: '/v1/presentations/{proofExchangeId}',
  tags: ['proofs'],
  summary: 'Get one presentation exchange',
  request: { params: IdParam },
  responses: { 200: jsonResponse(PresentationBody, 'The exchange'), ...errors },
})
const remove = createRoute({
  method: 'delete',
  path: '/v1/presentations/{proofExchangeId}',
  tags: ['proofs'],
  summary: 'Delete a presentation exchange',
  description: 'Deletes the exchange record, its DIDComm messages and its flow (a callback still owed is dropped).',
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...errors },
})

export function presentationRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const { agent } = deps
  const notFound = (c: Parameters<typeof errorResponse>[0], id: string) =>
    errorResponse(c, 404, 'not_found', `presentation exchange '${id}' not found`)
  return app
    .openapi(list, async (c) => {
      const records = await agent.modules.didcomm.proofs.getAll()
      records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      return c.json(await Promise.all(records.map((record) => presentationView(agent, record))), 200)
    })
    .openapi(get, async (c) => {
      const { proofExchangeId } = c.req.valid('param')
      const record = await agent.modules.didcomm.proofs.findById(proofExchangeId)
      return record ? c.json(await presentationView(agent, record), 200) : notFound(c, proofExchangeId)
    })
    .openapi(remove, async (c) => {
      const { proofExchangeId } = c.req.valid('param')
      return (await deletePresentation(agent, proofExchangeId)) ? c.body(null, 204) : notFound(c, proofExchangeId)
    })
}
