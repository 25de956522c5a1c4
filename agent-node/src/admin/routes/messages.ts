/** `POST /v1/message` (spec "Message"): queue a message to a connection. */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import { SendMessageBody, SendMessageResult } from '@parley/shared'
import { ConnectionUnavailableError } from '../../messages/MessageService.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

const postMessage = createRoute({
  method: 'post',
  path: '/v1/message',
  tags: ['messages'],
  summary: 'Send a message',
  description: 'Queues the message; 200 means queued, not delivered. Delivery is reported by `message-state-updated` events.',
  request: { body: { required: true, content: { 'application/json': { schema: SendMessageBody } } } },
  responses: {
    200: { description: 'Queued', content: { 'application/json': { schema: SendMessageResult } } },
    400: { description: 'Invalid body; `issues` names the fields', content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'Unknown connection', content: { 'application/json': { schema: ErrorBody } } },
    409: { description: 'Connection has not completed DID Exchange', content: { 'application/json': { schema: ErrorBody } } },
    410: { description: 'Connection was terminated (`terminate-connection` from either side)', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function messageRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(postMessage, async (c) => {
    try {
      return c.json(await deps.messages.send(c.req.valid('json')), 200)
    } catch (error) {
      if (error instanceof ConnectionUnavailableError) {
        if (error.reason === 'not-found') return errorResponse(c, 404, 'not_found', error.message)
        if (error.reason === 'terminated') return errorResponse(c, 410, 'connection_terminated', error.message)
        return errorResponse(c, 409, 'conflict', error.message)
      }
      throw error
    }
  })
}
