/**
 * The public interface (port 3001, the one to expose over TLS):
 * - `POST /`: DIDComm inbound over HTTP (`HttpInboundTransport`),
 * - WebSocket upgrades on any path: DIDComm inbound over WebSocket (Credo's WS transport on our server),
 * - `GET /invitation`: creates a connection invitation and redirects to the page showing its QR code,
 * - `GET /qr?oob=…`: that page (the default AGENT_INVITATION_BASE_URL),
 * - `GET /s?id=<uuid>`: short URLs (`short-urls/route.ts`),
 * - `GET /health`.
 */
import type { Server } from 'node:http'
import { Hono } from 'hono'
import { WebSocketServer } from 'ws'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { createConnectionInvitation } from '../didcomm/invitations.ts'
import type { InboundInbox } from '../didcomm/inbox/InboundInbox.ts'
import { HttpInboundTransport, MAX_ENVELOPE_BYTES } from '../didcomm/transport/HttpInboundTransport.ts'
import { WsInboundTransport } from '../didcomm/transport/WsInboundTransport.ts'
import { listen } from '../http/listen.ts'
import { renderInvitationPage } from './qr-page.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { shortUrlRoute } from '../short-urls/route.ts'

/** The inbound transports the public server feeds; hand them to the agent before it starts. */
export interface PublicTransports {
  http: HttpInboundTransport
  ws: WsInboundTransport
  socketServer: WebSocketServer
}

/** The HTTP and WebSocket inbound transports, both feeding `inbox`. */
export function createPublicTransports(inbox: InboundInbox): PublicTransports {
  const socketServer = new WebSocketServer({ noServer: true, maxPayload: MAX_ENVELOPE_BYTES })
  return { http: new HttpInboundTransport(inbox), ws: new WsInboundTransport(socketServer, inbox), socketServer }
}

export function createPublicApp(agent: () => DidcommAgent, transports: PublicTransports, config: AgentNodeConfig, shortUrls: ShortUrls): Hono {
  const app = new Hono()
  shortUrlRoute(app, shortUrls)
  app.get('/health', (c) => c.json({ ok: true }))
  app.post('/', (c) => transports.http.handle(c))
  app.get('/invitation', async (c) => c.redirect((await createConnectionInvitation(agent(), config)).url, 302))
  app.get('/qr', async (c) => {
    if (!c.req.query('oob') && !c.req.query('c_i')) return c.text('missing invitation (oob parameter)', 400)
    return c.html(await renderInvitationPage(`${config.publicUrl}/qr${new URL(c.req.url).search}`, config.label))
  })
  return app
}

/** Serves `app` on `port` (all interfaces) and routes WebSocket upgrades to the DIDComm socket server. */
export async function listenPublic(app: Hono, transports: PublicTransports, port: number): Promise<Server> {
  const server = await listen(app.fetch, port)
  server.on('upgrade', (request, socket, head) => {
    transports.socketServer.handleUpgrade(request, socket, head, (ws) => transports.socketServer.emit('connection', ws, request))
  })
  return server
}
