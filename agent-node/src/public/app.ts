/**
 * The public interface (port 3001, the one to expose over TLS):
 * - `POST /`: DIDComm inbound over HTTP (`HttpInboundTransport`),
 * - WebSocket upgrades on any path: DIDComm inbound over WebSocket (Credo's WS transport on our server),
 * - `GET /invitation`: redirects to the page showing the QR code of the agent's public invitation
 *   (one multi-use invitation naming the public DID, reused: anonymous requests store nothing and
 *   create no key),
 * - `GET /qr?oob=…`: that page (the default AGENT_INVITATION_BASE_URL),
 * - `GET /s?id=<uuid>`: short URLs (`short-urls/route.ts`),
 * - `GET /health`.
 *
 * Every request body is bounded while it streams in (DIDCOMM_MAX_ENVELOPE_BYTES, 413), and so is
 * every WebSocket message (`maxPayload`, close 1009); limits: docs/security.md.
 */
import type { Server } from 'node:http'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { WebSocketServer } from 'ws'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { InboundInbox } from '../didcomm/inbox/InboundInbox.ts'
import { publicConnectionInvitation } from '../didcomm/invitations.ts'
import type { EnvelopeLimits } from '../didcomm/transport/envelope.ts'
import { HttpInboundTransport } from '../didcomm/transport/HttpInboundTransport.ts'
import { WsInboundTransport } from '../didcomm/transport/WsInboundTransport.ts'
import { listen } from '../http/listen.ts'
import type { Logger } from '../logging/index.ts'
import { RateLimitedLogger } from '../logging/rate-limited.ts'
import { InvitationTooLongError, renderInvitationPage } from './qr-page.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { shortUrlRoute } from '../short-urls/route.ts'
import { syncBeforeAnswer } from '../http/sync-before-answer.ts'

/** The inbound transports the public server feeds; hand them to the agent before it starts. */
export interface PublicTransports {
  http: HttpInboundTransport
  ws: WsInboundTransport
  socketServer: WebSocketServer
}

/**
 * The HTTP and WebSocket inbound transports, both feeding `inbox` and bounded by `limits`; what
 * peers cause is logged through one rate-limited log.
 */
export function createPublicTransports(inbox: InboundInbox, limits: EnvelopeLimits, logger: Logger): PublicTransports {
  const socketServer = new WebSocketServer({ noServer: true, maxPayload: limits.maxBytes })
  const log = new RateLimitedLogger(logger)
  return { http: new HttpInboundTransport(inbox, limits, log), ws: new WsInboundTransport(socketServer, inbox, limits, log), socketServer }
}

/**
 * The public app; `publicDid` (resolved, SCID included) is the DID the public invitation names;
 * every answer waits for `syncToDisk` (`Database.syncToDisk`: what the request stored is durable).
 */
export function createPublicApp(
  agent: () => DidcommAgent,
  transports: PublicTransports,
  config: AgentNodeConfig,
  shortUrls: ShortUrls,
  publicDid: string,
  syncToDisk: () => Promise<void>,
): Hono {
  const app = new Hono()
  app.use(
    syncBeforeAnswer(syncToDisk),
    bodyLimit({
      maxSize: config.envelopeLimits.maxBytes,
      onError: (c) => c.json({ error: `body larger than ${config.envelopeLimits.maxBytes} bytes` }, 413, { connection: 'close' }),
    }),
  )
  shortUrlRoute(app, shortUrls)
  app.get('/health', (c) => c.json({ ok: true }))
  app.post('/', (c) => transports.http.handle(c))
  app.get('/invitation', async (c) => c.redirect((await publicConnectionInvitation(agent(), config, publicDid)).url, 302))
  app.get('/qr', async (c) => {
    if (!c.req.query('oob') && !c.req.query('c_i'))
      return c.json({ error: 'validation_error', message: 'missing invitation (oob parameter)' }, 400)
    try {
      return c.html(await renderInvitationPage(`${config.publicUrl}/qr${new URL(c.req.url).search}`, config.label))
    } catch (error) {
      if (error instanceof InvitationTooLongError) return c.json({ error: 'invitation_too_long', message: error.message }, 414)
      throw error
    }
  })
  return app
}

/** Serves `app` on `port` (all interfaces) and routes WebSocket upgrades to the DIDComm socket server. */
export async function listenPublic(app: Hono, transports: PublicTransports, port: number, logger: Logger): Promise<Server> {
  const server = await listen(app.fetch, port, undefined, logger)
  server.on('upgrade', (request, socket, head) => {
    transports.socketServer.handleUpgrade(request, socket, head, (ws) => transports.socketServer.emit('connection', ws, request))
  })
  return server
}
