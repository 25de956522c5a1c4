/**
 * The admin app's cross-cutting parts, as a unit (services are stand-ins that answer or throw):
 * - the request id: a sane `X-Request-Id` is kept and echoed, an absent or unsafe one replaced
 *   by a UUID, and every admin log line of the request carries it;
 * - `onError` maps each typed domain error to its status and error envelope, once for all
 *   routes (a route throws, nothing catches it on the way);
 * - the sub-apps' routes all reach the OpenAPI document.
 */
import { UnsafeUrlError } from '@parley/shared/net'
import { describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app.ts'
import type { AdminDeps } from '../../src/admin/context.ts'
import { adminRouter } from '../../src/admin/openapi.ts'
import { requestContext } from '../../src/admin/request-context.ts'
import { errorHandler } from '../../src/admin/errors.ts'
import { loadConfig } from '../../src/config/index.ts'
import { UnknownCredentialDefinitionError, ClaimsMismatchError } from '../../src/credentials/CredentialTypes.ts'
import { CredentialTypeExistsError, UnknownCredentialTypeError } from '../../src/credentials/transfer.ts'
import { ConflictError, DomainError, InvalidFieldError, InvalidInputError, NotFoundError } from '../../src/errors/index.ts'
import { IdempotencyKeyReusedError } from '../../src/messaging/idempotency.ts'
import { ConnectionUnavailableError, MessageIdReusedError } from '../../src/messaging/MessageService.ts'
import { InvitationTooLongError } from '../../src/public/qr-page.ts'
import { captureLogs } from '../support/log-lines.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const connectionId = '7d4f8a52-5f55-4a4e-9a0e-0c7b7f3f6a11'

/** The admin app over stand-in services; `services` replaces the ones a test needs. */
function adminApp(services: Partial<AdminDeps> = {}, env: Record<string, string> = {}) {
  const { logger, lines } = captureLogs('debug')
  const { config } = loadConfig({ AGENT_WALLET_KEY: 'x'.repeat(32), DATA_DIR: '/nonexistent', ...env })
  const app = createAdminApp({
    config,
    logger,
    build: { name: 'test', version: '0' },
    publicDid: 'did:web:example.org',
    syncToDisk: () => Promise.resolve(),
    ...services,
  } as AdminDeps)
  const call = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    app.request(path, {
      method: init.method ?? 'GET',
      headers: {
        host: '127.0.0.1',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
  return { call, lines }
}

describe('admin request id', () => {
  it('echoes a sane X-Request-Id and replaces an absent or unsafe one with a UUID', async () => {
    const { call } = adminApp()
    const kept = await call('/v1/agent', { headers: { 'x-request-id': 'controller-42_a=b' } })
    expect(kept.status).toBe(200)
    expect(kept.headers.get('x-request-id')).toBe('controller-42_a=b')

    expect((await call('/v1/agent')).headers.get('x-request-id')).toMatch(UUID)
    for (const unsafe of ['has space', 'new\\nline', '<script>', 'x'.repeat(129)]) {
      const answer = await call('/v1/agent', { headers: { 'x-request-id': unsafe } })
      expect(answer.headers.get('x-request-id'), unsafe).toMatch(UUID)
    }
  })

  it('is on refused requests and error answers too', async () => {
    const { call } = adminApp()
    const refused = await call('/v1/agent', { headers: { host: 'evil.example', 'x-request-id': 'refused-1' } })
    expect(refused.status).toBe(403)
    expect(refused.headers.get('x-request-id')).toBe('refused-1')
    const unknown = await call('/v1/nothing-here', { headers: { 'x-request-id': 'unknown-1' } })
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('x-request-id')).toBe('unknown-1')
  })

  it('is in every log line of the request: the request line and the error line of a 500', async () => {
    const failing = { list: async () => Promise.reject(new Error('store unavailable')) }
    const { call, lines } = adminApp({ subscriptions: failing as unknown as AdminDeps['subscriptions'] })
    const answer = await call('/v1/event-subscriptions', { headers: { 'x-request-id': 'trace-500' } })
    expect(answer.status).toBe(500)
    expect(await answer.json()).toEqual({ error: 'internal_error', message: 'internal error' })
    expect(answer.headers.get('x-request-id')).toBe('trace-500')

    const ofRequest = lines.filter((line) => line.requestId === 'trace-500')
    expect(ofRequest.map((line) => line.msg)).toEqual(['admin request failed', 'admin request'])
    expect(ofRequest[0]).toMatchObject({ level: 50, method: 'GET', path: '/v1/event-subscriptions', err: { message: 'store unavailable' } })
    expect(ofRequest[1]).toMatchObject({ level: 20, method: 'GET', path: '/v1/event-subscriptions', status: 500 })

    await call('/v1/agent')
    const generated = lines.at(-1)!
    expect(generated).toMatchObject({ msg: 'admin request', path: '/v1/agent', status: 200 })
    expect(generated.requestId).toMatch(UUID)
  })
})

describe('admin onError', () => {
  /** A router whose one route throws `error`, on the admin app's error handler. */
  const answerTo = async (error: Error) => {
    const { logger } = captureLogs()
    const app = adminRouter()
    app.use(...requestContext(logger))
    app.get('/throw', () => {
      throw error
    })
    app.onError(errorHandler(logger))
    const response = await app.request('/throw')
    return { status: response.status, body: await response.json() }
  }

  it('maps each kind of domain error to its status and envelope', async () => {
    const cases: [Error, number, Record<string, unknown>][] = [
      [new NotFoundError("thing 'a' not found"), 404, { error: 'not_found', message: "thing 'a' not found" }],
      [new ConflictError('busy'), 409, { error: 'conflict', message: 'busy' }],
      [
        new InvalidFieldError('callbackUrl', 'host does not resolve'),
        400,
        {
          error: 'validation_error',
          message: 'callbackUrl: host does not resolve',
          issues: [{ field: 'callbackUrl', message: 'host does not resolve' }],
        },
      ],
      [new InvalidInputError('too long', undefined, 'too_long'), 400, { error: 'too_long', message: 'too long' }],
      [new DomainError('gone', 'gone_away', 'left'), 410, { error: 'gone_away', message: 'left' }],
      [new DomainError('unprocessable', 'nope', 'will not'), 422, { error: 'nope', message: 'will not' }],
    ]
    for (const [error, status, body] of cases) expect(await answerTo(error), error.message).toEqual({ status, body })
  })

  it("keeps the services' errors' statuses and bodies", async () => {
    const definition = new UnknownCredentialDefinitionError('def-1')
    const cases: [Error, number, Record<string, unknown>][] = [
      [
        definition,
        404,
        { error: 'not_found', message: definition.message, issues: [{ field: 'credentialDefinitionId', message: definition.message }] },
      ],
      [new UnknownCredentialTypeError('def-1'), 404, { error: 'not_found', message: "no credential type with id 'def-1'" }],
      [
        new ClaimsMismatchError([{ field: 'claims', message: 'missing age' }]),
        400,
        { error: 'validation_error', message: 'claims: missing age', issues: [{ field: 'claims', message: 'missing age' }] },
      ],
      [new CredentialTypeExistsError('def-1'), 409, { error: 'conflict', message: "credential type 'def-1' already exists" }],
      [new ConnectionUnavailableError('c1', 'not-found'), 404, { error: 'not_found', message: "connection 'c1' not found" }],
      [
        new ConnectionUnavailableError('c1', 'not-ready'),
        409,
        { error: 'conflict', message: "connection 'c1' has not completed DID Exchange" },
      ],
      [
        new ConnectionUnavailableError('c1', 'terminated'),
        410,
        { error: 'connection_terminated', message: "connection 'c1' was terminated (hung up) and takes no more messages" },
      ],
      [new IdempotencyKeyReusedError('k'), 422, { error: 'idempotency_key_reused', message: new IdempotencyKeyReusedError('k').message }],
      [
        new MessageIdReusedError('m1'),
        409,
        {
          error: 'message_id_reused',
          message: new MessageIdReusedError('m1').message,
          issues: [{ field: 'id', message: new MessageIdReusedError('m1').message }],
        },
      ],
      [new InvitationTooLongError(4000), 400, { error: 'invitation_too_long', message: new InvitationTooLongError(4000).message }],
    ]
    for (const [error, status, body] of cases) expect(await answerTo(error), error.name).toEqual({ status, body })
  })

  it('answers errors thrown by services through the real routes, which catch nothing', async () => {
    const send = async () => Promise.reject(new ConnectionUnavailableError(connectionId, 'terminated'))
    const create = async () => Promise.reject(new UnsafeUrlError('http://10.0.0.1', 'private address'))
    const { call } = adminApp({
      messages: { send } as unknown as AdminDeps['messages'],
      subscriptions: { create, get: async () => undefined } as unknown as AdminDeps['subscriptions'],
    })
    const message = await call('/v1/message', { method: 'POST', body: { connectionId, type: 'text', content: 'hi' } })
    expect(message.status).toBe(410)
    expect(await message.json()).toMatchObject({ error: 'connection_terminated' })

    const subscription = await call('/v1/event-subscriptions', { method: 'POST', body: { url: 'http://10.0.0.1/hook' } })
    expect(subscription.status).toBe(400)
    expect(await subscription.json()).toEqual({
      error: 'validation_error',
      message: 'url: private address',
      issues: [{ field: 'url', message: 'private address' }],
    })

    const missing = await call(`/v1/event-subscriptions/${connectionId}`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'not_found', message: `event subscription '${connectionId}' not found` })
  })
})

describe('admin sub-apps', () => {
  it('all reach the OpenAPI document, with their error responses', async () => {
    const { call } = adminApp({}, { ENABLE_PUBLIC_API_EXPLORER: 'true' })
    const document = (await (await call('/api/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; in: string }[]
            responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>
          }
        >
      >
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/agent',
        '/v1/invitation',
        '/v1/qr',
        '/v1/connections/{connection_id}',
        '/v1/message',
        '/v1/credential-types/export/{id}',
        '/v1/credential-offer',
        '/v1/credential-exchanges',
        '/v1/presentation-request',
        '/v1/presentations/{proofExchangeId}',
        '/vt/issue-credential',
        '/v1/dead-letters/replay',
        '/v1/event-subscriptions',
        '/v1/events',
      ]),
    )
    const getConnection = document.paths['/v1/connections/{connection_id}']!.get!
    expect(Object.keys(getConnection.responses)).toEqual(['200', '400', '404'])
    expect(Object.keys(getConnection.responses['404']!.content!)).toEqual(['application/json'])
    expect(Object.keys(document.paths['/v1/qr']!.get!.responses['200']!.content!)).toEqual(['image/png'])
    expect(document.paths['/v1/connections/{connection_id}']!.delete!.responses['204']!.content).toBeUndefined()
    // the lists that page declare their page parameters and the next page's Link header
    for (const list of ['/v1/connections', '/v1/credential-exchanges', '/v1/presentations', '/v1/dead-letters']) {
      const get = document.paths[list]!.get!
      expect(get.parameters?.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'cursor']))
      expect(Object.keys(get.responses['200']!.headers ?? {})).toEqual(['Link'])
      expect(Object.keys(get.responses['200']!.content!)).toEqual(['application/json'])
    }
  })
})
