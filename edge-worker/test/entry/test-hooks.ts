/**
 * Fault-injection routes for the end-to-end fault tests, served only by the test entry
 * (`test/entry/index.ts`, never the production bundle). Each call must carry
 * `Authorization: Bearer <TUNNEL_SECRET>`; without a configured secret every call is refused.
 *
 * - `POST /test-hooks/conversations/:connectionId/reset`: resets that connection's Conversation
 *   object (`Conversation.reset`) the way the runtime does on a code update or an internal
 *   error: the instance ends, calls in progress fail, storage stays. Answers 202
 *   `{ reset: true }`.
 * - `POST /test-hooks/conversations/:connectionId/record` `{ exchanges }`: appends that many handled
 *   text exchanges to that connection's conversation record (`Conversation.seedRecord`), older
 *   than all of its events, as a long conversation holds them. Answers 200 `{ events }`, the
 *   events the record holds now.
 * - `GET /test-hooks/conversations/:connectionId/storage`: every row of every table of that
 *   connection's Conversation object (`Conversation.storageDump`), by table name. Read-only.
 * - `GET /test-hooks/directory/:identity`: what the user directory holds for that identity
 *   (`Directory.user`: roles, admin, connections), or `null`. Read-only.
 * - `POST /test-hooks/directory/members` `{ members: [{ connectionId, identity, roles }] }`: signs
 *   each in (`Directory.signIn`, not an admin), one after the other. Answers 200 `{ signedIn }`.
 * - `GET /test-hooks/holders/:role`: how many users hold `:role` or are admins
 *   (`Directory.holders`). Answers 200 `{ holders }`. Read-only.
 * - `POST /test-hooks/mcp-stdio/:server` `{ calls: [{ name, arguments }] }`: an SDK `Client`
 *   over the stdio relay transport (`createStdioRelayTransport`) to the stdio MCP server
 *   `:server` of agent-node's pack: connects, lists the tools, makes the calls in order.
 *   Answers 200 `{ tools, results, durationsMs, notifications }` (each call's round trip as the
 *   Worker measured it; the logging notifications the server sent), or 502 `{ error }`.
 */
import { Hono } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { timingSafeEqual } from 'hono/utils/buffer'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { conversationFor, directory } from '../../src/bindings.ts'
import { createStdioRelayTransport } from '../../src/mcp/stdio/index.ts'
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
  .post('/conversations/:connectionId/record', async (c) => {
    const { exchanges } = await c.req.json<{ exchanges: number }>()
    const conversation = conversationFor(c.env, c.req.param('connectionId')) as unknown as DurableObjectStub<Conversation>
    return c.json({ events: await conversation.seedRecord(exchanges) })
  })
  .get('/conversations/:connectionId/storage', async (c) =>
    c.json(await (conversationFor(c.env, c.req.param('connectionId')) as unknown as DurableObjectStub<Conversation>).storageDump()),
  )
  .get('/directory/:identity', async (c) => c.json(await directory(c.env).user(c.req.param('identity'))))
  .post('/directory/members', async (c) => {
    const { members } = await c.req.json<{ members: { connectionId: string; identity: string; roles: string[] }[] }>()
    for (const { connectionId, identity, roles } of members) await directory(c.env).signIn(connectionId, { identity, roles, admin: false })
    return c.json({ signedIn: members.length })
  })
  .get('/holders/:role', async (c) => c.json({ holders: (await directory(c.env).holders([c.req.param('role')])).length }))
  .post('/mcp-stdio/:server', async (c) => {
    const { calls } = await c.req.json<{ calls: { name: string; arguments?: Record<string, unknown> }[] }>()
    const client = new Client({ name: 'parley-edge-test', version: '1.0.0' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
    const notifications: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      notifications.push(notification.params.data)
    })
    try {
      await client.connect(createStdioRelayTransport(c.req.param('server'), { env: c.env }))
      const { tools } = await client.listTools()
      const results: unknown[] = []
      const durationsMs: number[] = []
      for (const call of calls) {
        const started = performance.now()
        results.push(await client.callTool(call))
        durationsMs.push(performance.now() - started)
      }
      return c.json({ tools: tools.map((tool) => tool.name), results, durationsMs, notifications })
    } catch (error) {
      return c.json({ error: error instanceof Error ? error.message : String(error) }, 502)
    } finally {
      await client.close()
    }
  })
