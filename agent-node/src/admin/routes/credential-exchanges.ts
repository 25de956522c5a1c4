/**
 * Credential exchanges (vs-agent's routes): `GET /v1/credential-exchanges` and `GET
 * /v1/credential-exchanges/{credentialExchangeId}`, over every issue-credential exchange
 * (offers by invitation or message, proposals from users).
 */
import { z } from '@hono/zod-openapi'
import { Claim } from '@parley/shared'
import type { CredentialExchangeView } from '../../credentials/exchanges.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

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
  query: z.strictObject({}),
  responses: { 200: [z.array(CredentialExchangeBody), 'Every credential exchange'], 400: 'Unknown query parameter' },
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
  list(): Promise<CredentialExchangeView[]>
  /** @throws NotFoundError when there is no exchange `id`. */
  get(id: string): Promise<CredentialExchangeView>
}

/** The `/v1/credential-exchanges` sub-app over `deps.exchanges`. */
export function credentialExchangeRoutes(deps: { exchanges: CredentialExchangeReader }) {
  return adminRouter()
    .openapi(list, async (c) => c.json(await deps.exchanges.list(), 200))
    .openapi(get, async (c) => c.json(await deps.exchanges.get(c.req.valid('param').credentialExchangeId), 200))
}
