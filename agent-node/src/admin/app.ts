/**
 * The admin REST interface (spec "Endpoints"), one router per resource on an OpenAPI app, so
 * `/api` documents exactly the schemas that validate requests. Bind it to a private interface
 * (spec "Authentication"); with ADMIN_API_TOKENS set it also requires a bearer token (`auth.ts`).
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { adminAccess } from './access.ts'
import { adminBodyLimit, adminJsonGuard } from './body-guard.ts'
import type { AdminDeps } from './context.ts'
import { errorHandler, errorResponse, validationHook } from './errors.ts'
import { AdminTokens } from './auth.ts'
import { apiExplorer } from './explorer.ts'
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
 * request first passes the Host/Origin check (`access.ts`), the bearer token check (`auth.ts`,
 * with ADMIN_API_TOKENS) and the body limits (`body-guard.ts`).
 */
export function createAdminApp(deps: AdminDeps): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook })
  app.use(
    adminAccess(deps.config.adminAccess),
    new AdminTokens(deps.config.adminApiTokens).middleware(),
    adminBodyLimit(deps.config.adminBody),
    adminJsonGuard(deps.config.adminBody),
  )
  const routers = [
    agentRoutes,
    invitationRoutes,
    connectionRoutes,
    messageRoutes,
    credentialTypeRoutes,
    credentialOfferRoutes,
    credentialExchangeRoutes,
    presentationRequestRoutes,
    presentationRoutes,
    vtRoutes,
    deadLetterRoutes,
    eventSubscriptionRoutes,
    eventStreamRoutes,
  ]
  for (const routes of routers) routes(deps, app)

  if (deps.config.enableApiExplorer) {
    // With tokens, the document declares bearer auth so the explorer's "Authorize" sends it.
    const bearer = deps.config.adminApiTokens.length > 0
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
