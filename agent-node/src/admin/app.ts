/**
 * The admin REST interface (spec "Endpoints"): one sub-app per resource (`routes/`), each
 * mounted with `app.route()` and given only the services it uses, on an OpenAPI app, so `/api`
 * documents exactly the schemas that validate requests. Bind it to a private interface (spec
 * "Authentication"); with ADMIN_API_TOKENS set it also requires a bearer token (`auth.ts`).
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { DidCommCredentialExchangeRecord, DidCommProofExchangeRecord } from '@credo-ts/didcomm'
import { syncBeforeAnswer } from '../http/sync-before-answer.ts'
import { credentialExchangeView, getCredentialExchange } from '../credentials/exchanges.ts'
import { Connections } from '../didcomm/connections.ts'
import { pageOfViews } from '../didcomm/records.ts'
import { createCredentialOfferInvitation } from '../credentials/offers.ts'
import { CredentialTypeTransfer } from '../credentials/transfer.ts'
import { issueFromJsonSchemaCredential } from '../credentials/vt-issue.ts'
import { DeadLetters } from '../dead-letters/DeadLetters.ts'
import { ConnectionInvitations } from '../didcomm/invitations.ts'
import { deletePresentation, getPresentation, presentationView } from '../identity-proofs/presentations.ts'
import { adminAccess } from './access.ts'
import { AdminTokens } from './auth.ts'
import { adminBodyLimit, adminJsonGuard } from './body-guard.ts'
import type { AdminDeps } from './context.ts'
import { errorHandler, errorResponse, validationHook } from './errors.ts'
import { apiExplorer } from './explorer.ts'
import type { AdminEnv } from './openapi.ts'
import { requestContext } from './request-context.ts'
import { agentRoutes } from './routes/agent.ts'
import { connectionRoutes } from './routes/connections.ts'
import { credentialExchangeRoutes } from './routes/credential-exchanges.ts'
import { credentialOfferRoutes } from './routes/credential-offer.ts'
import { credentialTypeRoutes } from './routes/credential-types.ts'
import { deadLetterRoutes } from './routes/dead-letters.ts'
import { eventStreamRoutes } from './routes/event-stream.ts'
import { eventSubscriptionRoutes } from './routes/event-subscriptions.ts'
import { invitationRoutes } from './routes/invitation.ts'
import { messageRoutes } from './routes/messages.ts'
import { presentationRequestRoutes } from './routes/presentation-request.ts'
import { presentationRoutes } from './routes/presentations.ts'
import { vtRoutes } from './routes/vt.ts'

/**
 * Creates the admin app; `/api` (explorer) and `/api/openapi.json` only when enabled. Every
 * request first gets its request id and logger (`request-context.ts`), then passes the
 * Host/Origin check (`access.ts`), the bearer token check (`auth.ts`, with ADMIN_API_TOKENS)
 * and the body limits (`body-guard.ts`). Errors thrown by services become answers in one place,
 * `onError` (`errors.ts`). Every answer leaves once what the request stored is durable
 * (`syncBeforeAnswer`).
 */
export function createAdminApp(deps: AdminDeps): OpenAPIHono<AdminEnv> {
  const { agent, config, publicDid } = deps
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook })
  app.use(
    syncBeforeAnswer(deps.syncToDisk),
    ...requestContext(deps.logger),
    adminAccess(config.adminAccess),
    new AdminTokens(config.adminApiTokens).middleware(),
    adminBodyLimit(config.adminBody),
    adminJsonGuard(config.adminBody),
  )
  const offerDeps = { agent, config, credentialTypes: deps.credentialTypes, shortUrls: deps.shortUrls, guard: deps.guard }
  app
    .route('/', agentRoutes({ info: { publicDid, endpoint: config.publicUrl, label: config.label, ...deps.build } }))
    .route('/', invitationRoutes({ invitations: new ConnectionInvitations(agent, config, publicDid) }))
    .route('/', connectionRoutes({ connections: new Connections(agent, deps.storage) }))
    .route('/', messageRoutes({ messages: deps.messages }))
    .route('/', credentialTypeRoutes({ credentialTypes: deps.credentialTypes, transfer: new CredentialTypeTransfer(agent, publicDid) }))
    .route('/', credentialOfferRoutes({ offer: (id, claims) => createCredentialOfferInvitation(offerDeps, id, claims) }))
    .route(
      '/',
      credentialExchangeRoutes({
        exchanges: {
          list: (request) => pageOfViews(agent, deps.storage, DidCommCredentialExchangeRecord, credentialExchangeView, request),
          get: (id) => getCredentialExchange(agent, id),
        },
      }),
    )
    .route('/', presentationRequestRoutes({ presentationRequests: deps.presentationRequests }))
    .route(
      '/',
      presentationRoutes({
        presentations: {
          list: (request) => pageOfViews(agent, deps.storage, DidCommProofExchangeRecord, presentationView, request),
          get: (id) => getPresentation(agent, id),
          delete: (id) => deletePresentation(agent, id),
        },
      }),
    )
    .route('/', vtRoutes({ issue: (url, claims) => issueFromJsonSchemaCredential(offerDeps, url, claims) }))
    .route('/', deadLetterRoutes({ deadLetters: new DeadLetters({ outbox: deps.outbox, delivery: deps.delivery }) }))
    .route('/', eventSubscriptionRoutes({ subscriptions: deps.subscriptions }))
    .route('/', eventStreamRoutes())

  if (config.enableApiExplorer) {
    // With tokens, the document declares bearer auth so the explorer's "Authorize" sends it.
    const bearer = config.adminApiTokens.length > 0
    if (bearer) app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' })
    app.doc31('/api/openapi.json', {
      openapi: '3.1.0',
      info: { title: 'Parley agent admin API', version: deps.build.version },
      ...(bearer ? { security: [{ bearerAuth: [] }] } : {}),
    })
    app.route('/', apiExplorer('/api/openapi.json'))
  }
  app.notFound((c) => errorResponse(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`))
  app.onError(errorHandler(deps.logger))
  return app
}
