/**
 * Credential exchanges (vs-agent's routes): `GET /v1/credential-exchanges[?limit&cursor]` (whole,
 * or one page: `../paging.ts`) and `GET /v1/credential-exchanges/{credentialExchangeId}`, over
 * every issue-credential exchange (offers by invitation or message, proposals from users).
 */
import { z } from '@hono/zod-openapi'
import { Claim } from '@parley/shared'
import type { CredentialExchangeView } from '../../credentials/exchanges.ts'
import type { Page, PageRequest } from '../../database/pages.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { checkCursor, linkNextPage, PAGE_PARAMS, pageRequest, pagedListResponse } from '../paging.ts'

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

const list = jsonRoute({
  method: 'get',
  path: '/v1/credential-exchanges',
  tags: ['credentials'],
  summary: 'List credential exchanges, newest first',
  query: z.strictObject(PAGE_PARAMS).superRefine(checkCursor),
  responses: {
    200: pagedListResponse(z.array(CredentialExchangeBody), 'The credential exchanges'),
    400: 'Unknown query parameter or invalid value; `issues` names it',
  },
})
const get = jsonRoute({
  method: 'get',
  path: '/v1/credential-exchanges/{credentialExchangeId}',
  tags: ['credentials'],
  summary: 'Get one credential exchange',
  params: IdParam,
  responses: { 200: [CredentialExchangeBody, 'The exchange'], 400: 'Invalid id', 404: 'No such credential exchange' },
})

/** The credential exchange reads these routes serve (`credentials/exchanges.ts`). */
export interface CredentialExchangeReader {
  /** A page of the exchanges, newest first (`limit` -1: all of them). */
  list(request: PageRequest): Promise<Page<CredentialExchangeView>>
  /** @throws NotFoundError when there is no exchange `id`. */
  get(id: string): Promise<CredentialExchangeView>
}

/** The `/v1/credential-exchanges` sub-app over `deps.exchanges`. */
export function credentialExchangeRoutes(deps: { exchanges: CredentialExchangeReader }) {
  return adminRouter()
    .openapi(list, async (c) => {
      const page = await deps.exchanges.list(pageRequest(c.req.valid('query')))
      linkNextPage(c, page.next)
      return c.json(page.records, 200)
    })
    .openapi(get, async (c) => c.json(await deps.exchanges.get(c.req.valid('param').credentialExchangeId), 200))
}
