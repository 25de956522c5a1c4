/**
 * `POST /v1/message` (spec "Message"): queue a message to a connection. Beyond the spec, an
 * `Idempotency-Key` header makes a retry safe: the same key within 24 h answers the first
 * message id (with `Idempotent-Replayed: true`) and sends nothing; the key with another body is 422.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { SendMessageBody, SendMessageResult } from '@parley/shared'
import { IdempotencyKeyReusedError } from '../../messages/idempotency.ts'
import { ConnectionUnavailableError, MessageIdReusedError } from '../../messages/MessageService.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

const postMessage = createRoute({
  method: 'post',
  path: '/v1/message',
  tags: ['messages'],
  summary: 'Send a message',
  description:
    'Queues the message; 200 means queued, not delivered. Delivery is reported by `message-state-updated` events. With `Idempotency-Key`, a repeat within 24 h returns the first id and sends nothing.',
  request: {
    headers: z.object({
      'idempotency-key': z
        .string()
        .min(1)
        .max(255)
        .optional()
        .describe('Any unique string (a UUID); the same key within 24 h returns the same message id and sends once'),
    }),
    body: { required: true, content: { 'application/json': { schema: SendMessageBody } } },
  },
  responses: {
    200: { description: 'Queued', content: { 'application/json': { schema: SendMessageResult } } },
    400: { description: 'Invalid body; `issues` names the fields', content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'Unknown connection', content: { 'application/json': { schema: ErrorBody } } },
    409: {
      description: "Connection has not completed DID Exchange, or the body's `id` names an earlier message (`message_id_reused`)",
      content: { 'application/json': { schema: ErrorBody } },
    },
    410: {
      description: 'Connection was terminated (`terminate-connection` from either side)',
      content: { 'application/json': { schema: ErrorBody } },
    },
    422: { description: 'Idempotency-Key already used for a different body', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function messageRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(postMessage, async (c) => {
    const key = c.req.valid('header')['idempotency-key']
    try {
      const { id, replayed } = await deps.messages.send(c.req.valid('json'), key === undefined ? undefined : { scope: 'admin', key })
      if (replayed) c.header('Idempotent-Replayed', 'true')
      return c.json({ id }, 200)
    } catch (error) {
      if (error instanceof IdempotencyKeyReusedError) return errorResponse(c, 422, 'idempotency_key_reused', error.message)
      if (error instanceof MessageIdReusedError)
        return errorResponse(c, 409, 'message_id_reused', error.message, [{ field: 'id', message: error.message }])
      if (error instanceof ConnectionUnavailableError) {
        if (error.reason === 'not-found') return errorResponse(c, 404, 'not_found', error.message)
        if (error.reason === 'terminated') return errorResponse(c, 410, 'connection_terminated', error.message)
        return errorResponse(c, 409, 'conflict', error.message)
      }
      throw error
    }
  })
}
