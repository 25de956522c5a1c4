/**
 * One conversation: the Durable Object of one DIDComm connection
 * (`CONVERSATION.idFromName(connectionId)`). It keeps the connection's inbox (each event id once,
 * handled in the connection's `seq` order), the session, the conversation record and an effect
 * log, and hands each event to the flows (flows/registry.ts): the first flow that claims it
 * handles it.
 *
 * Storing an event and handling it are separate steps: `receiveEvent` returns as soon as the
 * event is stored (the gateway then acknowledges it) and starts handling stored events, lowest
 * `seq` first, at once; the alarm it sets first, `FALLBACK_AFTER_MS` ahead, is the durable
 * fallback (an object evicted or failing mid-way handles them when the alarm fires, and the
 * runtime retries a failed alarm). A pass that leaves nothing to do deletes it, or, with a
 * retention (`CONVERSATION_RETENTION_DAYS`, retention.ts), moves it to when the record's oldest
 * row falls due, so an idle conversation is pruned too.
 * One pass at a time: a pass asked for during another runs after it. What a flow returns (a
 * session patch, records, commands) is committed in one transaction with the event's `handled`
 * mark; the commands are then sent with idempotency keys `<event id>:<step>`, so a retry or a
 * re-delivered event never makes the user see anything twice. The same alarm fires the one timer
 * a flow may set (`Session.timer`). After each event, the contextual menu is re-sent when the
 * session's menu changed (flows/step.ts), and the user directory learns who is
 * authenticated here (directory/).
 */
import { DurableObject } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { prettifyError } from 'zod'
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import { type EventFrame, REDACTION_MARKER, TunnelCommand } from '@parley/shared/tunnel'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { ApprovalNotice } from '../approvals/types.ts'
import { approvals, directory, tunnelGateway } from '../bindings.ts'
import { workerConfig } from '../config/index.ts'
import type { Env } from '../env.ts'
import { adminIdentities } from '../flows/authentication/roles.ts'
import { handleEvent } from '../flows/step.ts'
import type { FlowEvent, RecordEntry } from '../flows/types.ts'
import { createLogger, type Logger } from '../logging/index.ts'
import type { McpClients } from '../mcp/clients.ts'
import { mcpClientsFor } from '../mcp/deps.ts'
import { newSession, principalOf, type Session } from '../session/index.ts'
import { openDatabase, type Database } from '../storage/index.ts'
import type { HistoryTurn } from '../turn/index.ts'
import { InMemoryWindow, StoredWindow, type MemoryWindow } from './memory.ts'
import { migrations } from './migrations.ts'
import { conversation, events, schema } from './schema.ts'
import { conversationRetention, nextPruneAt, pruneRecord } from './retention.ts'
import { conversationStatements, type ConversationStatements } from './statements.ts'
import { workerServices, type WorkerServices } from '../services.ts'

/**
 * How long after an event is stored its fallback alarm fires, in ms. The event is handled at once
 * without it; an alarm due at once fired beside that pass, only to wait for it and find nothing
 * left, and cost the chat's round trip 1–2 ms at the median and 4–5 ms at p99 in local workerd
 * (bench/README.md, "chat-round-trip"). After an eviction or a failed pass, the work resumes
 * this long later, or at the connection's next event.
 */
export const FALLBACK_AFTER_MS = 5_000

/**
 * Durable Object of one DIDComm connection. RPC: `receiveEvent`. Alarm: handles stored events
 * and the flows' timer. Storage: schema.ts. Commands leave through the tunnel gateway's `sendCommand`.
 */
export class Conversation extends DurableObject<Env> {
  private readonly db: Database<typeof schema>
  private readonly statements: ConversationStatements
  private readonly config: AgentPackConfig
  /** Model, tools and fetch (the test entry adds test-only tool access to the tools). */
  protected services: WorkerServices
  private readonly memory: MemoryWindow
  /** This conversation's MCP clients (its own connections to user-controlled servers live here). */
  private readonly mcp: McpClients
  private readonly log: Logger
  /** Passes over owed work (`handleOwed`), one key: each runs after the one before. */
  private readonly passes = new KeyedQueue()
  /** How long the record is kept, ms (`CONVERSATION_RETENTION_DAYS`); undefined: forever. */
  private readonly retention: number | undefined
  /** The connection this object serves, once read or stored (it never changes after). */
  private owner?: string

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.log = createLogger('conversation', env.LOG_LEVEL)
    this.config = workerConfig(env)
    this.services = workerServices(env, this.config)
    this.db = openDatabase(ctx, schema, migrations)
    this.statements = conversationStatements(this.db)
    this.mcp = mcpClientsFor(env, this.config.mcp.servers, this.log)
    this.retention = conversationRetention(env, this.log)
    // Twice the window: an event that arrives up to a window late still sees a full one.
    this.memory = this.config.memory.backend === 'kvstore' ? new StoredWindow(this.db) : new InMemoryWindow(2 * this.config.memory.window)
  }

  /**
   * RPC for the tunnel gateway: stores `frame`'s event, returning once it is durable. An event id
   * seen before is not stored again (`duplicate: true`); the caller acknowledges either way.
   * Events are handled in sequence order: the alarm takes them by `seq`, and a message's memory
   * window holds only events with a lower `seq`, so an event that arrives after a later one
   * (logged) takes its place in the conversation. There is no waiting for a gap: agent-node's
   * outbox sends a connection's next event only after this one was stored, and the first event a
   * fresh (or reset) object sees may have any `seq`.
   * @throws when `frame` belongs to another connection than this conversation's.
   */
  async receiveEvent(frame: EventFrame): Promise<{ duplicate: boolean }> {
    const now = Date.now()
    const { latestSeq, insertEvent } = this.statements
    const stored = this.db.transaction((tx) => {
      const current = this.knownOwner()
      if (current !== undefined && current !== frame.connectionId) {
        throw new Error(`event of connection ${frame.connectionId} routed to the conversation of ${current}`)
      }
      if (current === undefined) tx.insert(conversation).values({ connectionId: frame.connectionId }).run()
      const latest = latestSeq.get()
      const row = insertEvent.get({ id: frame.id, seq: frame.seq, type: frame.event.type, body: frame.event, receivedAt: now })
      return row && { outOfSequence: latest !== undefined && frame.seq < latest.seq ? latest.seq : undefined }
    })
    this.owner = frame.connectionId
    if (stored?.outOfSequence !== undefined) {
      this.log.warn('event arrived after a later one; applied in sequence order', {
        eventId: frame.id,
        seq: frame.seq,
        latestSeq: stored.outOfSequence,
      })
    }
    if (stored) await this.owe(now, frame.id)
    return { duplicate: stored === undefined }
  }

  /**
   * RPC for the approvals object: stores `notice` (approvals/) as an event of this connection,
   * handled after the events stored before it by the approvals flow, which says its texts; the
   * menu is then refreshed with fresh badge counts. A notice id seen before is not stored again.
   * @throws when this conversation is not the one of `connectionId`.
   */
  async receiveNotice(connectionId: string, notice: ApprovalNotice): Promise<{ duplicate: boolean }> {
    const now = Date.now()
    const { latestSeq, insertEvent } = this.statements
    const stored = this.db.transaction(() => {
      if (this.knownOwner() !== connectionId) throw new Error(`notice for connection ${connectionId} routed to another conversation`)
      return insertEvent.get({
        id: notice.id,
        seq: latestSeq.get()?.seq ?? 0,
        type: 'approval-notice',
        body: { type: 'approval-notice', texts: notice.texts },
        receivedAt: now,
      })
    })
    if (stored) await this.owe(now, notice.id)
    return { duplicate: stored === undefined }
  }

  /** Arms the fallback alarm for stored work and starts handling it at once. */
  private async owe(now: number, eventId: string): Promise<void> {
    await this.ctx.storage.setAlarm(now + FALLBACK_AFTER_MS)
    // Without waiting for the alarm's hop; the alarm finds the work done, or does it if this fails.
    this.handleOwed().catch((error: unknown) =>
      this.log.warn('handling stored events failed; the alarm retries', { eventId, error: String(error) }),
    )
  }

  /** Runs a pass over owed work (`handleOwed`); the runtime retries the alarm if it fails. */
  override async alarm(): Promise<void> {
    await this.handleOwed()
  }

  /** Runs `pass` after the pass asked for before it (whatever that one's outcome); resolves or rejects with it. */
  private handleOwed(): Promise<void> {
    return this.passes.run('owed', () => this.pass())
  }

  /**
   * Sends owed commands and handles every stored event lowest `seq` first; then a due timer, after
   * which it starts over (events stored meanwhile, a timer the flow set). Once nothing is due,
   * prunes the record when a row fell due (retention.ts) and sets the alarm for a later timer or
   * the next row falling due, or drops it (the fallback alarm too) when neither is left.
   */
  private async pass(): Promise<void> {
    await this.sendEffects()
    /** The session as the last event handled here committed it (read from storage when none was). */
    let session: Session | undefined
    for (;;) {
      const next = this.statements.nextEvent.get()
      if (!next) break
      session = await this.handle(next.body, next.id, next.position, next.seq)
      await this.sendEffects()
    }
    const { timer } = session ?? this.session()
    if (timer && timer.at <= Date.now()) {
      await this.handle({ type: 'timer', at: timer.at }, `timer-${timer.at}`)
      await this.sendEffects()
      return this.pass()
    }
    // Nothing is left to do, so the fallback alarm would only fire to find that: one more
    // invocation (billed on Cloudflare) per chat turn. Dropped (or moved to the timer or the next
    // pruning) in the same synchronous stretch as the last look at the inbox: an event stored
    // after that look arms its own alarm later.
    const wakeAt = Math.min(timer?.at ?? Number.POSITIVE_INFINITY, this.prune(Date.now()) ?? Number.POSITIVE_INFINITY)
    if (wakeAt === Number.POSITIVE_INFINITY) await this.ctx.storage.deleteAlarm()
    else await this.ctx.storage.setAlarm(wakeAt)
  }

  /**
   * With a retention: deletes the record's rows that fell due by `now` (ms) and logs what went.
   * Returns when the next row falls due (`now` when a batch was left over), or undefined when
   * the record is kept forever or holds nothing that will fall due.
   */
  private prune(now: number): number | undefined {
    if (this.retention === undefined) return undefined
    const due = nextPruneAt(this.db, this.retention)
    if (due === undefined || due > now) return due
    const pruned = pruneRecord(this.db, now - this.retention)
    this.log.info('conversation record pruned', { connectionId: this.knownOwner(), ...pruned })
    return pruned.more ? now : nextPruneAt(this.db, this.retention)
  }

  /**
   * Runs the flow that claims `event` and commits its result (a timer has no event row).
   * @returns the session as committed.
   */
  private async handle(event: FlowEvent, eventId: string, position?: number, seq = Number.MAX_SAFE_INTEGER): Promise<Session> {
    const session = this.session()
    const connectionId = this.connectionId()
    const now = Date.now()
    const log = this.log.child({ eventId, connectionId })
    const {
      session: next,
      commands,
      record,
      redact,
    } = await handleEvent({
      event,
      eventId,
      session,
      config: this.config,
      now,
      log,
      connectionId,
      chat: { ...this.services, mcp: this.mcp, history: () => this.memory.before(seq, this.config.memory.window - 1) },
      approvals: approvals(this.env),
    })
    await this.updateDirectory(session, next, connectionId)
    const effects = sendableCommands(commands, log)
    const { saveSession, insertEffect, markHandled } = this.statements
    this.db.transaction((tx) => {
      saveSession.run({ data: next })
      for (const { command, step } of effects) {
        insertEffect.run({ commandId: crypto.randomUUID(), idempotencyKey: effectKey(eventId, step), command, createdAt: now })
      }
      if (position !== undefined) {
        for (const entry of record) this.insertRecordEntry(position, entry, now)
        const body = redact && event.type !== 'timer' && event.type !== 'approval-notice' ? redactedEvent(event) : undefined
        if (body) tx.update(events).set({ handledAt: now, body }).where(eq(events.position, position)).run()
        else markHandled.run({ handledAt: now, position })
      }
    })
    log.debug('event handled', { seq: position === undefined ? undefined : seq, commands: commands.length })
    this.memory.remember(
      seq,
      record.filter((entry): entry is HistoryTurn & RecordEntry => entry.role !== 'tool'),
    )
    return next
  }

  /** Adds `entry` of the event at `eventPosition` to the conversation record (inside the caller's transaction). */
  private insertRecordEntry(eventPosition: number, entry: RecordEntry, createdAt: number): void {
    const { insertMessage, insertToolCall } = this.statements
    if (entry.role !== 'tool') insertMessage.run({ eventPosition, role: entry.role, content: entry.content, createdAt })
    else
      insertToolCall.run({
        eventPosition,
        content: entry.content,
        tool: { name: entry.toolName, callId: entry.toolCallId, arguments: entry.arguments, ok: entry.ok },
        createdAt,
      })
  }

  /**
   * Keeps the user directory current when the user logs in, out or as someone else; before the
   * flow's result is committed, so a failure retries the whole event (both calls are idempotent).
   */
  private async updateDirectory(before: Session, after: Session, connectionId: string): Promise<void> {
    if (before.identity === after.identity && before.roles.join('\n') === after.roles.join('\n')) return
    if (after.identity === undefined) await directory(this.env).signOut(connectionId)
    else
      await directory(this.env).signIn(connectionId, {
        identity: after.identity,
        roles: after.roles,
        admin: principalOf(after, adminIdentities(this.config.flows.authentication)).admin,
      })
  }

  /** Hands every unsent command to the tunnel gateway, in order. */
  private async sendEffects(): Promise<void> {
    const { unsentEffects, markSent } = this.statements
    for (const effect of unsentEffects.all()) {
      await tunnelGateway(this.env).sendCommand({
        kind: 'command',
        id: effect.commandId,
        idempotencyKey: effect.idempotencyKey,
        eventId: eventOfEffectKey(effect.idempotencyKey),
        command: effect.command,
      })
      markSent.run({ sentAt: Date.now(), position: effect.position })
    }
  }

  private session(): Session {
    return this.statements.session.get()?.data ?? newSession()
  }

  private connectionId(): string {
    const owner = this.knownOwner()
    if (owner === undefined) throw new Error('conversation has no connection id (no event stored yet)')
    return owner
  }

  /** The connection this object serves; undefined before its first event is stored. */
  private knownOwner(): string | undefined {
    this.owner ??= this.statements.owner.get()?.connectionId
    return this.owner
  }
}

/** `event` with its message text replaced by the redaction marker (a text that held a secret). */
function redactedEvent(event: AgentEvent): AgentEvent {
  if (event.type !== 'message-received' || event.message.type !== 'text') return event
  return { ...event, message: { ...event.message, content: REDACTION_MARKER } }
}

/**
 * The commands of a handled event that the tunnel gateway will take (`TunnelCommand`), each with
 * its step (its index among all of them, so a command's idempotency key does not depend on the
 * ones dropped). One that is not valid (a flow's bug, or a value from the pack or a peer that
 * slipped through) is logged and dropped: stored, it would fail at the gateway on every pass and
 * hold up every later command and event of the conversation.
 */
function sendableCommands(commands: readonly TunnelCommand[], log: Logger): { command: TunnelCommand; step: number }[] {
  return commands.flatMap((command, step) => {
    const checked = TunnelCommand.safeParse(command)
    if (checked.success) return [{ command, step }]
    log.error('command dropped: not a valid tunnel command', { step, name: command.name, problem: prettifyError(checked.error) })
    return []
  })
}

/** The idempotency key of the `step`-th command issued while handling `eventId` (agent-node sends each key's message once). */
function effectKey(eventId: string, step: number): string {
  return `${eventId}:${step}`
}

/** The event id an `effectKey` was made from. */
function eventOfEffectKey(key: string): string {
  return key.slice(0, key.lastIndexOf(':'))
}
