/** `GET /v1/invitation`: a new connection invitation URL (spec "Endpoints"). */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import { createConnectionInvitation } from '../../didcomm/invitations.ts'
import type { AdminDeps } from '../context.ts'
import { InvitationBody } from '../schemas.ts'

const getInvitation = createRoute({
  method: 'get',
  path: '/v1/invitation',
  tags: ['connections'],
  summary: 'Create a connection invitation',
  responses: { 200: { description: 'A single-use out-of-band invitation', content: { 'application/json': { schema: InvitationBody } } } },
})

export function invitationRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(getInvitation, async (c) => c.json(await createConnectionInvitation(deps.agent, deps.config), 200))
}
