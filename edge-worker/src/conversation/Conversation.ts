/**
 * One conversation: the Durable Object of one DIDComm connection
 * (`CONVERSATION.idFromName(connectionId)`). It stores the events the tunnel gateway routes to it
 * (each id once, in the connection's order) and the chat's turns, and answers: the agent pack's
 * greeting when the connection completes, the model's reply to each text message.
 *
 * Storing an event and answering it are separate steps: `receiveEvent` returns as soon as the
 * event is stored (the gateway then acknowledges it), and the answer is produced by the object's
 * alarm, which works through unanswered events in the connection's sequence order (`seq`) and
 * is retried by the runtime if it fails. A reply is stored before it is sent and sent with an idempotency key derived from the
 * event, so a retry or a re-delivered event never makes the user see it twice.
 */
import { DurableObject } from 'cloudflare:workers'
import { and, asc, desc, eq, isNotNull, isNull, lte } from 'drizzle-orm'
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import { TextMessageBody } from '@parley/shared/messages'
import type { CommandFrame, EventFrame } from '@parley/shared/tunnel'
import { workerConfig } from '../config/index.ts'
import type { Env } from '../env.ts'
import { buildChatMessages, completeChat, isLlmConfigured, systemPromptFor, type Turn } from '../llm/index.ts'
import { createLogger, errorMessage, type Logger } from '../logging/index.ts'
import { openDatabase, type Database } from '../storage/index.ts'
import { tunnelGateway } from '../tunnel-gateway/index.ts'
import { migrations } from './migrations.ts'
import { conversation, events, schema, turns, type EventAction } from './schema.ts'
import { greetingFor, localizedText } from './texts.ts'

type EventRow = typeof events.$inferSelect

/** Longest text a `send-message` command may carry (TextMessageBody). */
const MAX_TEXT_LENGTH = TextMessageBody.shape.content.maxLength ?? Number.POSITIVE_INFINITY

/** What `event` asks of the conversation, if anything. */
function actionFor(event: AgentEvent): EventAction | undefined {
  if (event.type === 'connection-state-updated' && event.state === 'completed') return 'greet'
  if (event.type === 'message-received' && event.message.type === 'text' && event.message.content) return 'reply'
  return undefined
}

/**
 * Durable Object of one DIDComm connection. RPC: `receiveEvent` (and the test hook `reset`). Alarm: answers stored events.
 * Storage: schema.ts. Commands leave through the tunnel gateway's `sendCommand`.
 */
export class Conversation extends DurableObject<Env> {
  private readonly db: Database<typeof schema>
  private readonly config: AgentPackConfig
  private readonly log: Logger

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.log = createLogger('conversation', env.LOG_LEVEL)
    this.config = workerConfig(env)
    this.db = openDatabase(ctx, schema, migrations)
  }

  /**
   * RPC for the tunnel gateway: stores `frame`'s event, returning once it is durable. An event id
   * seen before is not applied again (`duplicate: true`); the caller acknowledges either way.
   * A text message becomes the user's turn in the same transaction. Only the first `completed`
   * connection state of a conversation asks for a greeting (the spec keys connection events by
   * connection and state). Events are applied in sequence order: the alarm answers them by `seq`
   * and a reply's history holds only the turns of events with a lower `seq`, so an event that
   * arrives after a later one (logged) takes its place in the conversation. There is no waiting
   * for a gap: agent-node's outbox sends a connection's next event only after this one was
   * stored, and the first event a fresh (or reset) object sees may have any `seq`.
   * @throws when `frame` belongs to another connection than this conversation's.
   */
  async receiveEvent(frame: EventFrame): Promise<{ duplicate: boolean }> {
    const now = Date.now()
    const stored = this.db.transaction((tx) => {
      const owner = tx.select().from(conversation).get()
      if (owner && owner.connectionId !== frame.connectionId) {
        throw new Error(`event of connection ${frame.connectionId} routed to the conversation of ${owner.connectionId}`)
      }
      if (!owner) tx.insert(conversation).values({ connectionId: frame.connectionId }).run()

      let action = actionFor(frame.event)
      if (action === 'greet' && tx.select().from(events).where(eq(events.action, 'greet')).get()) action = undefined
      const latest = tx.select({ seq: events.seq }).from(events).orderBy(desc(events.position)).limit(1).get()
      const row = tx.insert(events).values({
        id: frame.id, seq: frame.seq, type: frame.event.type, body: frame.event, action, receivedAt: now,
      }).onConflictDoNothing().returning().get()
      // Only text is answered by the LLM for now; other message types are stored, not answered.
      if (row && action === 'reply' && frame.event.type === 'message-received' && frame.event.message.type === 'text') {
        tx.insert(turns).values({ eventPosition: row.position, role: 'user', content: frame.event.message.content, createdAt: now }).run()
      }
      return row && { row, outOfSequence: latest !== undefined && frame.seq < latest.seq ? latest.seq : undefined }
    })
    if (stored?.outOfSequence !== undefined) {
      this.log.warn('event arrived after a later one; applied in sequence order', { eventId: frame.id, seq: frame.seq, latestSeq: stored.outOfSequence })
    }
    if (stored?.row.action) await this.ctx.storage.setAlarm(now)
    return { duplicate: stored === undefined }
  }

  /**
   * RPC, test hook only (`router/test-hooks.ts`, enabled by `TEST_HOOKS=1`): ends this instance
   * with `ctx.abort`, as the runtime resets an object on a code update or an internal error.
   * Calls in progress (an event being stored, the alarm answering) fail; storage is kept and
   * the next call starts a fresh instance. The call itself always rejects.
   */
  reset(): never {
    this.ctx.abort('reset by the test hook')
    throw new Error('unreachable: ctx.abort() throws')
  }

  /** Answers every stored event still owed an answer, lowest `seq` first. */
  override async alarm(): Promise<void> {
    for (;;) {
      const next = this.db.select().from(events)
        .where(and(isNotNull(events.action), isNull(events.handledAt)))
        .orderBy(asc(events.seq), asc(events.position)).limit(1).get()
      if (!next) return
      await this.answer(next)
      this.db.update(events).set({ handledAt: Date.now() }).where(eq(events.position, next.position)).run()
    }
  }

  private async answer(event: EventRow): Promise<void> {
    const language = this.config.metadata.defaultLanguage
    const connectionId = this.connectionId()
    if (event.action === 'greet') {
      const text = this.storedAnswer(event) ?? this.storeAnswer(event, greetingFor(this.config, language))
      if (text === undefined) this.log.info('no greeting: flows.welcome is disabled or has no template', { language })
      else await this.send(`greeting:${connectionId}`, { connectionId, type: 'text', content: text })
      return
    }
    const text = this.storedAnswer(event) ?? this.storeAnswer(event, await this.reply(event, language))
    const threadId = event.body.type === 'message-received' ? event.body.message.threadId ?? undefined : undefined
    if (text !== undefined) await this.send(`reply:${event.id}`, { connectionId, type: 'text', content: text, threadId })
  }

  /** The model's answer to the user turn of `event`, or the text explaining why there is none. */
  private async reply(event: EventRow, language: string): Promise<string> {
    const { llm, memory } = this.config
    if (!isLlmConfigured(llm)) return localizedText(this.config, language, 'LLM_NOT_CONFIGURED')
    const history: Turn[] = this.db.select({ role: turns.role, content: turns.content }).from(turns)
      .innerJoin(events, eq(events.position, turns.eventPosition))
      .where(lte(events.seq, event.seq))
      .orderBy(desc(events.seq), desc(turns.id)).limit(memory.window).all().reverse()
    const messages = buildChatMessages(systemPromptFor(this.config, language), history, memory.window)
    try {
      const reply = await completeChat(llm, messages)
      if (llm.verbose) this.log.info('model exchange', { model: llm.model, messages, reply })
      return reply
    } catch (error) {
      this.log.error('model call failed', { model: llm.model, host: llm.baseUrl ? new URL(llm.baseUrl).host : null, eventId: event.id, error: errorMessage(error) })
      return localizedText(this.config, language, 'LLM_UNAVAILABLE')
    }
  }

  private storedAnswer(event: EventRow): string | undefined {
    return this.db.select({ content: turns.content }).from(turns)
      .where(and(eq(turns.eventPosition, event.position), eq(turns.role, 'assistant'))).get()?.content
  }

  private storeAnswer(event: EventRow, text: string | undefined): string | undefined {
    if (text === undefined) return undefined
    const content = text.slice(0, MAX_TEXT_LENGTH)
    this.db.insert(turns).values({ eventPosition: event.position, role: 'assistant', content, createdAt: Date.now() }).run()
    return content
  }

  private connectionId(): string {
    const row = this.db.select().from(conversation).get()
    if (!row) throw new Error('conversation has no connection id (no event stored yet)')
    return row.connectionId
  }

  private async send(idempotencyKey: string, message: TextMessageBody): Promise<void> {
    const frame: CommandFrame = {
      kind: 'command',
      id: crypto.randomUUID(),
      idempotencyKey,
      command: { name: 'send-message', message },
    }
    await tunnelGateway(this.env).sendCommand(frame)
  }
}
