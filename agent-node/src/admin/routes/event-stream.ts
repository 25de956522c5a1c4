/**
 * `GET /v1/events` documented in the OpenAPI explorer. The stream itself is a WebSocket upgrade
 * handled on the admin server by `events/stream/server.ts`; a plain GET reaches this route and
 * is told to upgrade (426).
 */
import { EventStreamQuery } from '../../events/stream/query.ts'
import { errorResponse } from '../errors.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

const eventStream = jsonRoute({
  method: 'get',
  path: '/v1/events',
  tags: ['events'],
  summary: 'Event stream (WebSocket)',
  description:
    'Open as a WebSocket (for local controllers on the private network). Every matching event arrives as `{ kind: "event", id, connectionId, seq, cursor, event }`, in outbox order; no acks. Reconnect with `from=<cursor of the last event processed>` to resume. A query that does not validate refuses the upgrade with 400.',
  query: EventStreamQuery,
  responses: {
    101: 'Switching protocols: the stream starts',
    400: 'Invalid query; `issues` names the fields',
    403: '`Host` or `Origin` not allowed (ADMIN_ALLOWED_HOSTS, ADMIN_ALLOWED_ORIGINS): `forbidden_host` or `forbidden_origin`',
    426: 'Not a WebSocket upgrade request',
  },
})

/** The `/v1/events` sub-app: documents the WebSocket, answers a plain GET with 426. */
export function eventStreamRoutes() {
  return adminRouter().openapi(eventStream, (c) => {
    c.header('upgrade', 'websocket')
    return errorResponse(c, 426, 'upgrade_required', 'GET /v1/events is a WebSocket endpoint: open it with a WebSocket client')
  })
}
