/**
 * Approval requests across users (manifest spec "mcp", approval policies, and "States and
 * transitions"): one object per Worker (`APPROVALS.idFromName('approvals')`, bindings.ts
 * `approvals(env)`), its requests in SQLite, so they survive restarts.
 *
 * - `submit` creates a pending request (idempotent by id: the confirmation question's id).
 * - `resolve` approves, rejects or cancels a pending request. It reads and writes in one
 *   synchronous transaction, and an object runs one such call at a time, so of two approvers
 *   acting at once exactly one moves the request: the other is told it is no longer pending
 *   (first approver wins), and the tool runs once.
 * - Expiry: the object's alarm is set for the earliest `expiresAt` of a pending request; when it
 *   fires, every request due is expired.
 * - Each transition is committed with a `transitions` row owing its side effects; a pass then
 *   runs the tool of an approved request (at most once: a run interrupted half-way is not
 *   repeated, its result says so) and hands a notice (approvals/notices.ts) to every connection of
 *   the requester and of every approver (the user directory knows them), where the approvals
 *   flow says the texts and the menu's badges are refreshed. A transition that fails does not
 *   hold up the others; the alarm retries it for `GIVE_UP_MS`, then it is logged and given up.
 */
import { DurableObject } from 'cloudflare:workers'
import { and, asc, eq, isNull, lte } from 'drizzle-orm'
import { conversationFor, directory } from '../bindings.ts'
import { workerConfig } from '../config/index.ts'
import type { McpClients } from '../mcp/clients.ts'
import { mcpClientsFor } from '../mcp/deps.ts'
import { workerServices } from '../services.ts'
import type { Env } from '../env.ts'
import { createLogger, errorMessage, type Logger } from '../logging/index.ts'
import { decideApprovedCall, mayApprove } from '../tools/policy.ts'
import { runTool } from '../tools/run.ts'
import type { Tool } from '../tools/types.ts'
import { inlineLimit, openDatabase, type Database } from '../storage/index.ts'
import { migrations } from './migrations.ts'
import { transitionTexts } from './notices.ts'
import { requests, schema, transitions } from './schema.ts'
import type {
  Actor,
  ApprovalAction,
  ApprovalCounts,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalSubmission,
  NoticeText,
  ResolveOutcome,
} from './types.ts'

/** Delay before a failed pass is retried, ms. */
const RETRY_MS = 5_000
/** How long a transition's side effects are retried before they are given up (logged), ms. */
const GIVE_UP_MS = 24 * 60 * 60_000
/** What an approved request's result says when its run was interrupted (it is never run twice). */
const INTERRUPTED = 'error: the approved call was interrupted before it finished; it is not run again'

type Row = typeof requests.$inferSelect

function toRequest(row: Row): ApprovalRequest {
  const { executionStartedAt: _started, requesterRoles, ...rest } = row
  return { ...rest, requesterRoles }
}

const TARGET: Record<ApprovalAction, ApprovalStatus> = { approve: 'approved', reject: 'rejected', cancel: 'cancelled' }

/** Durable Object of the approval requests. RPC: `submit`, `resolve`, `counts`, `mine`, `actionable`, `request`. */
export class Approvals extends DurableObject<Env> {
  private readonly db: Database<typeof schema>
  private readonly log: Logger
  /** MCP clients, made on the first approved call that needs them. */
  private mcp?: McpClients
  /** The last pass asked for; each runs after the one before. */
  private passes: Promise<void> = Promise.resolve()

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.log = createLogger('approvals', env.LOG_LEVEL)
    this.db = openDatabase(ctx, schema, migrations)
  }

  /**
   * The tools an approved request may run: the Worker's registry, then the tools of the
   * admin-controlled MCP servers (named as a conversation names them). A user-controlled server's
   * tools need the requester's own configuration, which lives in their conversation: a request
   * for one of them ends with an error result.
   */
  protected async tools(): Promise<readonly Tool[]> {
    const config = workerConfig(this.env)
    const registry = workerServices(this.env, config).tools
    if (config.mcp.servers.length === 0) return registry
    this.mcp ??= mcpClientsFor(this.env, config.mcp.servers, this.log)
    return [...registry, ...(await this.mcp.toolsFor({}, new Set(registry.map((tool) => tool.name))))]
  }

  /**
   * Creates the pending request `input` (or returns the one of that id, unchanged). With no
   * `approvers`, only admins may approve it.
   * @throws when `timeoutMinutes` is not a positive number or `argsJson` is not the JSON text of
   * an object.
   */
  async submit(input: ApprovalSubmission, now = Date.now()): Promise<ApprovalRequest> {
    if (!(input.timeoutMinutes > 0) || !Number.isFinite(input.timeoutMinutes)) {
      throw new Error(`timeoutMinutes: expected a positive number, got ${input.timeoutMinutes}`)
    }
    const args: unknown = JSON.parse(input.argsJson)
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('argsJson: expected the JSON text of an object')
    const { row, created } = this.db.transaction((tx) => {
      const existing = tx.select().from(requests).where(eq(requests.id, input.id)).get()
      if (existing) return { row: existing, created: false }
      const inserted = tx
        .insert(requests)
        .values({
          id: input.id,
          tool: input.tool,
          server: input.server ?? null,
          argsJson: input.argsJson,
          requester: input.requester.identity,
          requesterRoles: input.requester.roles,
          requesterConnection: input.requester.connectionId,
          approvers: input.approvers,
          status: 'pending',
          createdAt: now,
          expiresAt: now + Math.round(input.timeoutMinutes * 60_000),
        })
        .returning()
        .get()
      tx.insert(transitions)
        .values({ key: `${input.id}:pending`, requestId: input.id, status: 'pending', createdAt: now })
        .run()
      return { row: inserted, created: true }
    })
    if (created) await this.owe()
    return toRequest(row)
  }

  /**
   * `actor` approves or rejects (an approver role, or an admin) or cancels (the requester) request
   * `id`. Repeating one's own action is answered as done, so a retried call changes nothing.
   */
  async resolve(id: string, action: ApprovalAction, actor: Actor, now = Date.now()): Promise<ResolveOutcome> {
    const target = TARGET[action]
    const outcome = this.db.transaction((tx): ResolveOutcome & { changed?: boolean } => {
      const row = tx.select().from(requests).where(eq(requests.id, id)).get()
      if (!row) return { ok: false, reason: 'not-found' }
      const request = toRequest(row)
      const allowed = action === 'cancel' ? actor.identity === row.requester : mayApprove(actor, row.approvers)
      if (!allowed) return { ok: false, reason: 'not-allowed', request }
      if (row.status !== 'pending') {
        const mine = row.status === target && (action === 'cancel' || row.approver === (actor.identity ?? null))
        return mine ? { ok: true, request } : { ok: false, reason: 'not-pending', request }
      }
      const updated = tx
        .update(requests)
        .set({ status: target, approver: action === 'cancel' ? null : (actor.identity ?? null), resolvedAt: now })
        .where(and(eq(requests.id, id), eq(requests.status, 'pending')))
        .returning()
        .get()!
      tx.insert(transitions)
        .values({ key: `${id}:${target}`, requestId: id, status: target, createdAt: now })
        .run()
      return { ok: true, request: toRequest(updated), changed: true }
    })
    const { changed, ...result } = outcome
    if (changed) await this.owe()
    return result
  }

  /** The badge counts of `actor`: pending requests they made, and pending requests of others they may approve. */
  async counts(actor: Actor): Promise<ApprovalCounts> {
    return { approvalRequestCount: (await this.mine(actor.identity)).length, pendingApprovalCount: (await this.actionable(actor)).length }
  }

  /** The pending requests `identity` made, oldest first (none for a guest). */
  async mine(identity: string | undefined): Promise<ApprovalRequest[]> {
    if (identity === undefined) return []
    return this.pending().filter((request) => request.requester === identity)
  }

  /** The pending requests of others that `actor` may approve or reject, oldest first. */
  async actionable(actor: Actor): Promise<ApprovalRequest[]> {
    if (actor.identity === undefined) return []
    return this.pending().filter((request) => request.requester !== actor.identity && mayApprove(actor, request.approvers))
  }

  /** Request `id`, or null. */
  async request(id: string): Promise<ApprovalRequest | null> {
    const row = this.db.select().from(requests).where(eq(requests.id, id)).get()
    return row ? toRequest(row) : null
  }

  /** Expires what is due, settles owed transitions and re-arms; the runtime retries the alarm if this fails. */
  override async alarm(): Promise<void> {
    await this.handleOwed()
  }

  private pending(): ApprovalRequest[] {
    return this.db
      .select()
      .from(requests)
      .where(eq(requests.status, 'pending'))
      .orderBy(asc(requests.createdAt), asc(requests.id))
      .all()
      .map(toRequest)
  }

  /** Arms the alarm (the durable fallback) and starts a pass at once. */
  private async owe(): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now())
    this.handleOwed().catch((error: unknown) => this.log.warn('approvals pass failed; the alarm retries', { error: errorMessage(error) }))
  }

  /** Runs a pass after the one asked for before it. */
  private handleOwed(): Promise<void> {
    const pass = this.passes.then(
      () => this.pass(),
      () => this.pass(),
    )
    this.passes = pass
    return pass
  }

  private async pass(): Promise<void> {
    this.expireDue(Date.now())
    const owed = this.db.select().from(transitions).where(isNull(transitions.doneAt)).orderBy(asc(transitions.createdAt)).all()
    let failed: unknown
    for (const transition of owed) {
      try {
        await this.settle(transition)
      } catch (error) {
        if (Date.now() - transition.createdAt < GIVE_UP_MS) failed ??= error
        else {
          this.log.error('transition side effects given up', { key: transition.key, error: errorMessage(error) })
          this.db.update(transitions).set({ doneAt: Date.now() }).where(eq(transitions.key, transition.key)).run()
        }
      }
    }
    if (failed !== undefined) {
      await this.ctx.storage.setAlarm(Date.now() + RETRY_MS)
      throw failed
    }
    const next = this.db
      .select({ expiresAt: requests.expiresAt })
      .from(requests)
      .where(eq(requests.status, 'pending'))
      .orderBy(asc(requests.expiresAt))
      .limit(inlineLimit(1))
      .get()
    if (next) await this.ctx.storage.setAlarm(next.expiresAt)
  }

  /** Moves every pending request whose time is up to `expired`. */
  private expireDue(now: number): void {
    this.db.transaction((tx) => {
      const due = tx
        .update(requests)
        .set({ status: 'expired', resolvedAt: now })
        .where(and(eq(requests.status, 'pending'), lte(requests.expiresAt, now)))
        .returning({ id: requests.id })
        .all()
      for (const { id } of due) {
        tx.insert(transitions)
          .values({ key: `${id}:expired`, requestId: id, status: 'expired', createdAt: now })
          .onConflictDoNothing()
          .run()
      }
    })
  }

  /** The side effects of one transition: the tool's run for an approval, then a notice to every party's connections. */
  private async settle(transition: typeof transitions.$inferSelect): Promise<void> {
    let row = this.db.select().from(requests).where(eq(requests.id, transition.requestId)).get()
    if (!row) throw new Error(`transition ${transition.key} of an unknown request`)
    if (transition.status === 'approved' && row.result === null) row = await this.execute(row)
    const request = { ...toRequest(row), status: transition.status }
    const texts = transitionTexts(request)
    const notices = new Map<string, NoticeText[]>()
    const requester = await directory(this.env).user(request.requester)
    for (const connectionId of requester?.connectionIds ?? []) notices.set(connectionId, texts.requester)
    for (const approver of await directory(this.env).holders(request.approvers)) {
      if (approver.identity === request.requester) continue
      const own = approver.identity === request.approver
      for (const connectionId of approver.connectionIds) notices.set(connectionId, own ? [] : texts.approvers)
    }
    // Every connection is tried before a failure makes the pass retry (a notice handed twice is handled once).
    const failures: unknown[] = []
    for (const [connectionId, noticeTexts] of notices) {
      // The id is also the stem of the commands' idempotency keys, which agent-node keeps across connections.
      const id = `approval:${transition.key}:${connectionId}`
      await conversationFor(this.env, connectionId)
        .receiveNotice(connectionId, { id, texts: noticeTexts })
        .catch((error: unknown) => failures.push(error))
    }
    if (failures.length > 0) throw new Error(`${failures.length} notices of ${transition.key} not delivered: ${errorMessage(failures[0])}`)
    this.db.update(transitions).set({ doneAt: Date.now() }).where(eq(transitions.key, transition.key)).run()
  }

  /** Runs the tool of the approved request `row` as its requester, once; stores and returns the result. */
  private async execute(row: Row): Promise<Row> {
    let result = INTERRUPTED
    if (row.executionStartedAt === null) {
      this.db.update(requests).set({ executionStartedAt: Date.now() }).where(eq(requests.id, row.id)).run()
      const principal = { identity: row.requester, roles: row.requesterRoles, admin: false }
      const ref = row.server === null ? { tool: row.tool } : { tool: row.tool, server: row.server }
      const decision = decideApprovedCall(await this.tools(), ref, principal)
      if (!decision.allowed) result = `error: ${decision.reason}`
      else {
        const config = workerConfig(this.env)
        const { fetch } = workerServices(this.env, config)
        const args = JSON.parse(row.argsJson) as Record<string, unknown>
        result = (await runTool(decision.tool, args, { principal, integrations: config.integrations, fetch })).result
      }
      this.log.info('approved tool call ran', { requestId: row.id, tool: row.tool })
    }
    return this.db.update(requests).set({ result }).where(eq(requests.id, row.id)).returning().get()!
  }
}
