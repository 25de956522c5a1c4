/**
 * `GET /v1/events` documented in the OpenAPI explorer. The stream itself is a WebSocket upgrade
 * handled on the admin server by `events/stream/server.ts`; a plain GET reaches this route and
 * is told to upgrade (426).
 */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import { EventStreamQuery } from '../../events/stream/query.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

const eventStream = createRoute({
  method: 'get',
  path: '/v1/events',
  tags: ['events'],
  summary: 'Event stream (WebSocket)',
  description:
    'Open as a WebSocket (for local controllers on the private network). Every matching event arrives as `{ kind: "event", id, connectionId, seq, cursor, event }`, in outbox order; no acks. Reconnect with `from=<cursor of the last event processed>` to resume. A query that does not validate refuses the upgrade with 400.',
  request: { query: EventStreamQuery },
  responses: {
    101: { description: 'Switching protocols: the stream starts' },
    400: { description: 'Invalid query; `issues` names the fields', content: { 'application/json': { schema: ErrorBody } } },
    403: {
      description: '`Host` or `Origin` not allowed (ADMIN_ALLOWED_HOSTS, ADMIN_ALLOWED_ORIGINS): `forbidden_host` or `forbidden_origin`',
      content: { 'application/json': { schema: ErrorBody } },
    },
    426: { description: 'Not a WebSocket upgrade request', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function eventStreamRoutes(_deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(eventStream, (c) => {
    c.header('upgrade', 'websocket')
    return errorResponse(c, 426, 'upgrade_required', 'GET /v1/events is a WebSocket endpoint: open it with a WebSocket client')
  })
}
