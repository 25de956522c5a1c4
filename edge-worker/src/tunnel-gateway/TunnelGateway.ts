/**
 * The tunnel gateway: the one Durable Object agent-node's tunnel WebSocket connects to
 * (`idFromName('tunnel')`). It authenticates the socket, routes each event frame to the
 * Conversation object of its DIDComm connection and acknowledges it once stored, and carries
 * commands from the conversations down to the agent, and answers `stats-request` frames with its
 * counters (`counters.ts`). It also relays JSON-RPC between the edge's MCP clients and the stdio
 * MCP servers agent-node runs (`McpStdioRelays.ts`). Frames: shared/src/tunnel/frames.ts.
 *
 * Several agent-node instances may share one database (issue 17, "More than one agent-node"):
 * the gateway keeps one socket per instance (the upgrade's `x-parley-instance`, a hibernation tag;
 * `default` without it), and a new socket replaces only the same instance's. Events come up from
 * whichever instance delivers them; a command goes down one open socket, and when a socket
 * closes, every command not yet answered is sent again on another (agent-node runs a command once
 * per idempotency key, whichever instance gets it).
 *
 * The socket uses the WebSocket hibernation API, so an idle tunnel costs nothing; whatever must
 * survive hibernation (nonces, undelivered commands) is in SQLite. An answered command's row is
 * deleted with the next write-behind flush (`write-behind.ts`), with the counters, in one commit.
 */
import { DurableObject } from 'cloudflare:workers'
import { asc, eq, inArray, lt, sql } from 'drizzle-orm'
import { prettifyError } from 'zod'
import { eventConnectionId } from '@parley/shared/events'
import {
  CommandFrame,
  DEFAULT_MAX_SKEW_MS,
  eventBytes,
  MAX_EVENT_BYTES,
  parseFrame,
  replacedCloseReason,
  TUNNEL_CLOSE_REPLACED,
  UpstreamFrame,
  handshakeInstance,
  verifyTunnelHandshake,
  type AckFrame,
  commandConnectionId,
  type CommandResultFrame,
  type EventFrame,
  type JsonRpcMessage,
  type RejectFrame,
  type StatsFrame,
} from '@parley/shared/tunnel'
import { conversationFor } from '../bindings.ts'
import type { Env } from '../env.ts'
import { createLogger, errorMessage, type Logger } from '../logging/index.ts'
import { openDatabase, type Database } from '../storage/index.ts'
import { ConnectionQueues } from './ConnectionQueues.ts'
import { McpStdioRelays } from './McpStdioRelays.ts'
import { Counters } from './counters.ts'
import { WriteBehind } from './write-behind.ts'
import { migrations } from './migrations.ts'
import { nonces, outbox, schema } from './schema.ts'

/** Settled commands deleted per statement (each id is a bound parameter; SQLite allows some thousands). */
const SETTLED_PER_STATEMENT = 500

/** Close code sent to an agent socket replaced by a newer authenticated one of the same instance. */
export const CLOSE_REPLACED = TUNNEL_CLOSE_REPLACED

/**
 * Durable Object holding agent-node's tunnel socket. HTTP: the upgrade (`fetch`). RPC:
 * `sendCommand`. WebSocket handlers: event and command-result frames. Storage: schema.ts.
 */
export class TunnelGateway extends DurableObject<Env> {
  private readonly db: Database<typeof schema>
  private readonly counters: Counters
  /** Stores a command frame in the outbox (`commandId`, `frame`, `createdAt`); its row, none when queued already. */
  private readonly queueCommand
  /** The outbox row of the command `commandId` (its frame), none when unknown. */
  private readonly findCommand
  /** Writes that may wait a little, flushed together (`write-behind.ts`). */
  private readonly writeBehind = new WriteBehind()
  /** Commands whose result came, their outbox rows not deleted yet (the next write-behind flush does). */
  private readonly settled = new Set<string>()
  private readonly log: Logger
  private readonly queues = new ConnectionQueues()
  private readonly mcpStdio = new McpStdioRelays()

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.log = createLogger('tunnel-gateway', env.LOG_LEVEL)
    this.db = openDatabase(ctx, schema, migrations)
    this.counters = new Counters(this.db, this.writeBehind)
    this.writeBehind.register(() => this.deleteSettled())
    // prepared once: a chat turn queues and settles one command
    this.queueCommand = this.db
      .insert(outbox)
      .values({ commandId: sql.placeholder('commandId'), frame: sql.placeholder('frame'), createdAt: sql.placeholder('createdAt') })
      .onConflictDoNothing()
      .returning()
      .prepare()
    this.findCommand = this.db
      .select({ frame: outbox.frame })
      .from(outbox)
      .where(eq(outbox.commandId, sql.placeholder('commandId')))
      .prepare()
  }

  /**
   * The WebSocket upgrade of `GET /tunnel`. Answers 426 without an upgrade, 503 when
   * TUNNEL_SECRET is not configured, 401 `{error, reason}` when the handshake headers are missing,
   * stale or wrongly signed (`verifyTunnelHandshake`) or the nonce was used before
   * (`replayed-nonce`), else 101 with the socket, replacing the previous socket of the same
   * instance (`x-parley-instance`; closed 4000 with a reason naming the new handshake's nonce,
   * `replacedCloseReason`) and sending it every command still in the outbox.
   */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json({ error: 'upgrade-required', reason: 'the tunnel is a WebSocket' }, { status: 426 })
    }
    const secret = this.env.TUNNEL_SECRET
    if (!secret) {
      this.log.error('tunnel refused: TUNNEL_SECRET is not configured')
      return Response.json({ error: 'tunnel-disabled', reason: 'TUNNEL_SECRET is not configured' }, { status: 503 })
    }
    const now = Date.now()
    const verdict = await verifyTunnelHandshake(secret, request.headers, now, DEFAULT_MAX_SKEW_MS)
    if (!verdict.ok) return this.refuse(verdict.reason)
    if (!this.claimNonce(verdict.handshake.nonce, verdict.handshake.timestamp + DEFAULT_MAX_SKEW_MS, now)) {
      return this.refuse('replayed-nonce')
    }

    const instance = handshakeInstance(request.headers)
    const { 0: client, 1: server } = new WebSocketPair()
    const reason = replacedCloseReason(verdict.handshake.nonce)
    for (const previous of this.openSockets(instance)) previous.close(CLOSE_REPLACED, reason)
    this.ctx.acceptWebSocket(server, [instance])
    this.queues.reset()
    const pending = this.unsettledCommands()
    for (const frame of pending) server.send(JSON.stringify(frame))
    this.counters.count('agent_connections')
    this.log.info('agent connected', { instance, pendingCommands: pending.length })
    return new Response(null, { status: 101, webSocket: client })
  }

  /**
   * RPC for Conversation objects: queues `frame` for agent-node. It is stored before this
   * returns and sent now if the agent is connected, else on its next connection; it is sent
   * again after a reconnect until its `command-result` arrives (the idempotency key makes that
   * safe).
   * @throws when `frame` is not a valid CommandFrame.
   */
  async sendCommand(frame: CommandFrame): Promise<void> {
    const command = CommandFrame.parse(frame)
    const queued = this.queueCommand.get({ commandId: command.id, frame: command, createdAt: Date.now() })
    if (queued) {
      this.counters.count('commands_queued')
      this.log.debug('command queued', {
        commandId: command.id,
        eventId: command.eventId,
        idempotencyKey: command.idempotencyKey,
        connectionId: commandConnectionId(command.command),
      })
    }
    const [socket] = this.openSockets()
    if (socket) this.trySend(socket, command)
  }

  /**
   * RPC for the edge's stdio MCP transport: sends `message` to the stdio server `server` that
   * agent-node runs (by name only; agent-node refuses a name its own pack does not configure).
   * @returns the response to a request, `null` once a notification or response is written.
   * @throws when no agent is connected, the message is not JSON-RPC 2.0 (the error names the
   *   field), agent-node refuses it, the tunnel closes first or no answer comes in time.
   */
  async relayMcpStdio(server: string, message: JsonRpcMessage): Promise<JsonRpcMessage | null> {
    return this.mcpStdio.relay(server, message, (frame) => {
      const parsed = CommandFrame.safeParse(frame)
      if (!parsed.success) throw new Error(`invalid mcp-stdio message: ${prettifyError(parsed.error)}`)
      const command = parsed.data
      const [socket] = this.openSockets()
      if (!socket) throw new Error(`MCP server '${server}': agent-node is not connected`)
      socket.send(JSON.stringify(command))
    })
  }

  /** RPC for the edge's stdio MCP transport: what `server` sends on its own, one JSON-RPC message per line. */
  async mcpStdioMessages(server: string): Promise<ReadableStream<Uint8Array>> {
    return this.mcpStdio.open(server)
  }

  /** One frame from agent-node: an event to route, the result of a command, or an MCP server's message. */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const parsed = parseFrame(UpstreamFrame, message)
    if ('error' in parsed) {
      this.counters.count('frames_rejected')
      this.log.warn('frame rejected', { error: parsed.error })
      return
    }
    const { frame } = parsed
    if (frame.kind === 'command-result') {
      if (!this.mcpStdio.settleResult(frame)) this.settleCommand(frame)
    } else if (frame.kind === 'mcp-stdio-message') this.mcpStdio.receive(frame)
    else if (frame.kind === 'stats-request') this.trySend(ws, { kind: 'stats', id: frame.id, counters: this.counters.read() })
    else await this.routeEvent(ws, frame)
  }

  /** The agent closed the tunnel: completes the close handshake, hands its commands to another instance. */
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.log.info('agent disconnected', { instance: this.ctx.getTags(ws)[0], code, reason })
    this.mcpStdio.closed()
    if (ws.readyState === WebSocket.CLOSING) ws.close(1000, 'tunnel closed')
    this.resendPending(ws)
  }

  override async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    this.log.warn('agent socket error', { instance: this.ctx.getTags(ws)[0], error: errorMessage(error) })
    this.resendPending(ws)
  }

  /**
   * The open agent sockets (one per instance), of `instance` only when given. A socket that is
   * `closed` is left out even before workerd reports its close.
   */
  private openSockets(instance?: string): WebSocket[] {
    return this.ctx.getWebSockets(instance).filter((ws) => ws.readyState === WebSocket.OPEN && ws !== this.closing)
  }

  /** The socket whose close is being handled (its readyState may still read OPEN). */
  private closing?: WebSocket

  /**
   * Sends every command not yet answered on another open socket: the instance behind `closed` may
   * have died before answering them. One that did run there answers its first result again.
   */
  private resendPending(closed: WebSocket): void {
    this.closing = closed
    try {
      const [socket] = this.openSockets()
      if (!socket) return
      const pending = this.unsettledCommands()
      for (const frame of pending) this.trySend(socket, frame)
      if (pending.length > 0) this.log.info('commands sent again on another instance', { count: pending.length })
    } finally {
      this.closing = undefined
    }
  }

  private refuse(reason: string): Response {
    this.counters.count('handshakes_refused')
    this.log.warn('tunnel refused', { reason })
    return Response.json({ error: 'unauthorized', reason }, { status: 401 })
  }

  /** Records `nonce` until `expiresAt` (ms), pruning expired ones; false when it was seen already. */
  private claimNonce(nonce: string, expiresAt: number, now: number): boolean {
    this.db.delete(nonces).where(lt(nonces.expiresAt, now)).run()
    const claimed = this.db.insert(nonces).values({ nonce, expiresAt }).onConflictDoNothing().returning().get()
    return claimed !== undefined
  }

  /**
   * Hands `frame` to the Conversation object of its connection, in order after the connection's
   * earlier events, and acknowledges it on `ws` once stored. Nothing is acknowledged when the
   * frame is inconsistent or storing fails: agent-node delivers it again. An event that can never
   * be stored (larger than `MAX_EVENT_BYTES`, which keeps every row below SQLite's limit) is
   * answered `reject`, so agent-node dead-letters it, and the connection's later events go on.
   */
  private async routeEvent(ws: WebSocket, frame: EventFrame): Promise<void> {
    if (eventConnectionId(frame.event) !== frame.connectionId) {
      this.counters.count('frames_rejected')
      this.log.warn('frame rejected', { error: "connectionId differs from the event's connection", eventId: frame.id })
      return
    }
    const bytes = eventBytes(frame.event)
    if (bytes > MAX_EVENT_BYTES)
      return this.reject(ws, frame, `event of ${bytes} bytes, more than the ${MAX_EVENT_BYTES} a conversation stores`)
    const conversation = conversationFor(this.env, frame.connectionId)
    const outcome = await this.queues.run(frame.connectionId, frame.id, async () => {
      try {
        await conversation.receiveEvent(frame)
      } catch (error) {
        this.counters.count('events_not_stored')
        this.log.error('event not stored', { eventId: frame.id, connectionId: frame.connectionId, error: errorMessage(error) })
        throw error
      }
    })
    if (outcome === 'done') {
      this.counters.count('events_acknowledged')
      this.log.debug('event stored', { eventId: frame.id, connectionId: frame.connectionId, seq: frame.seq })
      this.trySend(ws, { kind: 'ack', id: frame.id })
    } else if (outcome === 'held-back') {
      this.counters.count('events_held_back')
      this.log.warn('event held back until an earlier one is stored', { eventId: frame.id, connectionId: frame.connectionId })
    }
  }

  /** The frames of the commands in the outbox whose result has not come, in the order they were queued. */
  private unsettledCommands(): CommandFrame[] {
    const rows = this.db.select().from(outbox).orderBy(asc(outbox.position)).all()
    return rows.filter((row) => !this.settled.has(row.commandId)).map((row) => row.frame)
  }

  /**
   * A command's result came: its outbox row goes with the next write-behind flush (a result
   * repeated meanwhile, or for a command never queued here, counts as unknown).
   */
  private settleCommand(result: CommandResultFrame): void {
    const removed = this.settled.has(result.id) ? undefined : this.findCommand.get({ commandId: result.id })
    if (removed) {
      this.settled.add(result.id)
      this.writeBehind.soon()
      this.counters.count(result.ok ? 'command_results_ok' : 'command_results_failed')
    }
    const ids = { commandId: result.id, eventId: removed?.frame.eventId, idempotencyKey: removed?.frame.idempotencyKey }
    if (!result.ok) this.log.error('command failed', { ...ids, error: result.error })
    else if (!removed) this.log.debug('result of an unknown command', { commandId: result.id })
    else this.log.debug('command done', { ...ids, messageId: 'id' in result.result ? result.result.id : undefined })
  }

  /** Deletes the outbox rows of the settled commands (inside the write-behind flush: one commit). */
  private deleteSettled(): void {
    const ids = [...this.settled]
    for (let start = 0; start < ids.length; start += SETTLED_PER_STATEMENT) {
      this.db
        .delete(outbox)
        .where(inArray(outbox.commandId, ids.slice(start, start + SETTLED_PER_STATEMENT)))
        .run()
    }
    this.settled.clear()
  }

  /** Answers `reject` for an event that can never be stored, with a log line saying why. */
  private reject(ws: WebSocket, frame: EventFrame, reason: string): void {
    this.log.error('event can never be stored; rejected for agent-node to dead-letter', {
      eventId: frame.id,
      connectionId: frame.connectionId,
      type: frame.event.type,
      reason,
    })
    this.trySend(ws, { kind: 'reject', id: frame.id, reason: reason.slice(0, 1_000) })
  }

  private trySend(ws: WebSocket, frame: AckFrame | RejectFrame | CommandFrame | StatsFrame): void {
    try {
      ws.send(JSON.stringify(frame))
    } catch (error) {
      this.log.warn('agent socket gone; frame not sent', { kind: frame.kind, id: frame.id, error: errorMessage(error) })
    }
  }
}
