/**
 * Presentation exchanges (vs-agent's routes): `GET /v1/presentations[?limit&cursor]` (whole, or
 * one page: `../paging.ts`), `GET
 * /v1/presentations/{proofExchangeId}` and `DELETE /v1/presentations/{proofExchangeId}`, over
 * every proof exchange (invitation flows and `identity-proof-request` messages alike).
 */
import { z } from '@hono/zod-openapi'
import { Claim } from '@parley/shared'
import { NotFoundError } from '../../errors/index.ts'
import type { Page, PageRequest } from '../../database/pages.ts'
import type { PresentationView } from '../../identity-proofs/presentations.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { checkCursor, linkNextPage, PAGE_PARAMS, pageRequest, pagedListResponse } from '../paging.ts'

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
const errors = { 400: 'Invalid id or query', 404: 'No such presentation exchange' } as const

const list = jsonRoute({
  method: 'get',
  path: '/v1/presentations',
  tags: ['proofs'],
  summary: 'List presentation exchanges, newest first',
  query: z.strictObject(PAGE_PARAMS).superRefine(checkCursor),
  responses: { 200: pagedListResponse(z.array(PresentationBody), 'The presentation exchanges'), 400: errors[400] },
})
const get = jsonRoute({
  method: 'get',
  path: '/v1/presentations/{proofExchangeId}',
  tags: ['proofs'],
  summary: 'Get one presentation exchange',
  params: IdParam,
  responses: { 200: [PresentationBody, 'The exchange'], ...errors },
})
const remove = jsonRoute({
  method: 'delete',
  path: '/v1/presentations/{proofExchangeId}',
  tags: ['proofs'],
  summary: 'Delete a presentation exchange',
  description: 'Deletes the exchange record, its DIDComm messages and its flow (a callback still owed is dropped).',
  params: IdParam,
  responses: { 204: 'Deleted', ...errors },
})

/** The presentation exchanges these routes serve (`identity-proofs/presentations.ts`). */
export interface PresentationStore {
  /** A page of the exchanges, newest first (`limit` -1: all of them). */
  list(request: PageRequest): Promise<Page<PresentationView>>
  /** @throws NotFoundError when there is no exchange `id`. */
  get(id: string): Promise<PresentationView>
  /** @returns false when there is no exchange `id`. */
  delete(id: string): Promise<boolean>
}

/** The `/v1/presentations` sub-app over `deps.presentations` (`identity-proofs/presentations.ts`). */
export function presentationRoutes(deps: { presentations: PresentationStore }) {
  const { presentations } = deps
  return adminRouter()
    .openapi(list, async (c) => {
      const page = await presentations.list(pageRequest(c.req.valid('query')))
      linkNextPage(c, page.next)
      return c.json(page.records, 200)
    })
    .openapi(get, async (c) => c.json(await presentations.get(c.req.valid('param').proofExchangeId), 200))
    .openapi(remove, async (c) => {
      const { proofExchangeId } = c.req.valid('param')
      if (!(await presentations.delete(proofExchangeId))) throw new NotFoundError(`presentation exchange '${proofExchangeId}' not found`)
      return c.body(null, 204)
    })
}
