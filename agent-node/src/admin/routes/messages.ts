/**
 * `POST /v1/message` (spec "Message"): queue a message to a connection. Beyond the spec, an
 * `Idempotency-Key` header makes a retry safe: the same key within 24 h answers the first
 * message id (with `Idempotent-Replayed: true`) and sends nothing; the key with another body is 422.
 */
import { z } from '@hono/zod-openapi'
import { SendMessageBody, SendMessageResult } from '@parley/shared'
import type { MessageService } from '../../messaging/MessageService.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'

const postMessage = jsonRoute({
  method: 'post',
  path: '/v1/message',
  tags: ['messages'],
  summary: 'Send a message',
  description:
    'Queues the message; 200 means queued, not delivered. Delivery is reported by `message-state-updated` events. With `Idempotency-Key`, a repeat within 24 h returns the first id and sends nothing.',
  headers: z.object({
    'idempotency-key': z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('Any unique string (a UUID); the same key within 24 h returns the same message id and sends once'),
  }),
  body: SendMessageBody,
  responses: {
    200: [SendMessageResult, 'Queued'],
    400: 'Invalid body; `issues` names the fields',
    404: 'Unknown connection',
    409: "Connection has not completed DID Exchange, or the body's `id` names an earlier message (`message_id_reused`)",
    410: 'Connection was terminated (`terminate-connection` from either side)',
    422: 'Idempotency-Key already used for a different body',
  },
})

/** The `/v1/message` sub-app over `deps.messages`; its errors (unknown, unready or terminated connection, reused id or key) reach `onError`. */
export function messageRoutes(deps: { messages: Pick<MessageService, 'send'> }) {
  return adminRouter().openapi(postMessage, async (c) => {
    const key = c.req.valid('header')['idempotency-key']
    const { id, replayed } = await deps.messages.send(c.req.valid('json'), key === undefined ? undefined : { scope: 'admin', key })
    if (replayed) c.header('Idempotent-Replayed', 'true')
    return c.json({ id }, 200)
  })
}
