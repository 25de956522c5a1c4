/**
 * The Worker as the end-to-end fault tests run it (`startWorker({ entry })` in
 * scripts/local-stack.ts): the production entry plus fault-injection hooks, by subclassing the
 * production classes. The production bundle (wrangler.toml `main`) has none of this.
 */
import { Hono } from 'hono'
import { Conversation as ProductionConversation } from '../../src/conversation/index.ts'
import type { Env } from '../../src/env.ts'
import { app } from '../../src/router/index.ts'
import { storeExchange } from '../support/record.ts'
import { withTestAccess } from './access.ts'
import { testHooks } from './test-hooks.ts'

export { Approvals } from './approvals.ts'
export { Directory } from '../../src/directory/index.ts'
export { McpServerHub } from '../../src/mcp-hub/index.ts'
export { TunnelGateway } from '../../src/tunnel-gateway/index.ts'

/** The production conversation, plus `reset`, with the test-only tool access of access.ts. */
export class Conversation extends ProductionConversation {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.services = { ...this.services, tools: withTestAccess(this.services.tools, env) }
  }

  /**
   * RPC, test hook: ends this instance with `ctx.abort`, as the runtime resets an object on a
   * code update or an internal error. Calls in progress (an event being stored, the alarm
   * handling) fail; storage is kept and the next call starts a fresh instance. The call itself
   * always rejects.
   */
  reset(): never {
    this.ctx.abort('reset by the test hook')
    throw new Error('unreachable: ctx.abort() throws')
  }

  /**
   * RPC, test hook: appends `exchanges` handled text events, each with a user and an assistant
   * message, as the record of a long conversation holds them; their `seq` (-exchanges … -1) is
   * below every event of the connection, so they are the oldest history of its next turn.
   * @returns how many events the record holds now.
   */
  seedRecord(exchanges: number): number {
    const sql = this.ctx.storage.sql
    const now = Date.now()
    const seeded = sql.exec<{ n: number }>('SELECT count(*) AS n FROM events WHERE seq < 0').one().n
    for (let i = 0; i < exchanges; i++) {
      const seq = -(seeded + i + 1)
      storeExchange(sql, { id: `seeded-${crypto.randomUUID()}`, seq, user: `question ${seq}`, assistant: `answer ${seq}`, at: now })
    }
    return sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n
  }

  /** RPC, test hook: every row of every table of this object's storage, by table name (read-only). */
  storageDump(): Record<string, unknown[]> {
    const tables = this.ctx.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray()
    return Object.fromEntries(tables.map(({ name }) => [name, this.ctx.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()]))
  }
}

/** Test hooks first, then the production routes. */
const testApp = new Hono<{ Bindings: Env }>().route('/test-hooks', testHooks).route('/', app)

export default { fetch: testApp.fetch } satisfies ExportedHandler<Env>
