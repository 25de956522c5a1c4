/**
 * The public interface (port 3001, the one to expose over TLS):
 * - `POST /`: DIDComm inbound over HTTP (`HttpInboundTransport`),
 * - WebSocket upgrades on any path: DIDComm inbound over WebSocket (Credo's WS transport on our server),
 * - `GET /invitation`: redirects to the page showing the QR code of the agent's public invitation
 *   (one multi-use invitation, reused: anonymous requests store nothing and create no key),
 * - `GET /qr?oob=…`: that page (the default AGENT_INVITATION_BASE_URL),
 * - `GET /s?id=<uuid>`: short URLs (`short-urls/route.ts`),
 * - `GET /health`.
 */
import type { Server } from 'node:http'
import { DidCommWsInboundTransport } from '@credo-ts/node'
import { Hono } from 'hono'
import { WebSocketServer } from 'ws'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { publicConnectionInvitation } from '../didcomm/invitations.ts'
import { HttpInboundTransport, MAX_ENVELOPE_BYTES } from '../didcomm/transport/HttpInboundTransport.ts'
import { listen } from '../http/listen.ts'
import { InvitationTooLongError, renderInvitationPage } from './qr-page.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { shortUrlRoute } from '../short-urls/route.ts'

/** The inbound transports the public server feeds; hand them to the agent before it starts. */
export interface PublicTransports {
  http: HttpInboundTransport
  ws: DidCommWsInboundTransport
  socketServer: WebSocketServer
}

export function createPublicTransports(): PublicTransports {
  const socketServer = new WebSocketServer({ noServer: true, maxPayload: MAX_ENVELOPE_BYTES })
  return { http: new HttpInboundTransport(), ws: new DidCommWsInboundTransport({ server: socketServer }), socketServer }
}

export function createPublicApp(agent: () => DidcommAgent, transports: PublicTransports, config: AgentNodeConfig, shortUrls: ShortUrls): Hono {
  const app = new Hono()
  shortUrlRoute(app, shortUrls)
  app.get('/health', (c) => c.json({ ok: true }))
  app.post('/', (c) => transports.http.handle(c))
  app.get('/invitation', async (c) => c.redirect((await publicConnectionInvitation(agent(), config)).url, 302))
  app.get('/qr', async (c) => {
    if (!c.req.query('oob') && !c.req.query('c_i')) return c.json({ error: 'validation_error', message: 'missing invitation (oob parameter)' }, 400)
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
export async function listenPublic(app: Hono, transports: PublicTransports, port: number): Promise<Server> {
  const server = await listen(app.fetch, port)
  server.on('upgrade', (request, socket, head) => {
    transports.socketServer.handleUpgrade(request, socket, head, (ws) => transports.socketServer.emit('connection', ws, request))
  })
  return server
}
