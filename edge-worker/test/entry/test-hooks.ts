/**
 * Fault-injection routes for the end-to-end fault tests, served only by the test entry
 * (`test/entry/index.ts`, never the production bundle). Each call must carry
 * `Authorization: Bearer <TUNNEL_SECRET>`; without a configured secret every call is refused.
 *
 * - `POST /test-hooks/conversations/:connectionId/reset`: resets that connection's Conversation
 *   object (`Conversation.reset`) the way the runtime does on a code update or an internal
 *   error: the instance ends, calls in progress fail, storage stays. Answers 202
 *   `{ reset: true }`.
 * - `GET /test-hooks/conversations/:connectionId/storage`: every row of every table of that
 *   connection's Conversation object (`Conversation.storageDump`), by table name. Read-only.
 * - `GET /test-hooks/directory/:identity`: what the user directory holds for that identity
 *   (`Directory.user`: roles, admin, connections), or `null`. Read-only.
 */
import { Hono } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { timingSafeEqual } from 'hono/utils/buffer'
import { conversationFor, directory } from '../../src/bindings.ts'
import type { Env } from '../../src/env.ts'
import type { Conversation } from './index.ts'

export const testHooks = new Hono<{ Bindings: Env }>()
  .use(
    '*',
    bearerAuth<{ Bindings: Env }>({
      verifyToken: async (token, c) => typeof c.env.TUNNEL_SECRET === 'string' && (await timingSafeEqual(token, c.env.TUNNEL_SECRET)),
    }),
  )
  .post('/conversations/:connectionId/reset', async (c) => {
    try {
      await (conversationFor(c.env, c.req.param('connectionId')) as unknown as DurableObjectStub<Conversation>).reset()
    } catch {
      // The object ended itself mid-call: the caller always sees this call fail.
    }
    return c.json({ reset: true }, 202)
  })
  .get('/conversations/:connectionId/storage', async (c) =>
    c.json(await (conversationFor(c.env, c.req.param('connectionId')) as unknown as DurableObjectStub<Conversation>).storageDump()),
  )
  .get('/directory/:identity', async (c) => c.json(await directory(c.env).user(c.req.param('identity'))))
