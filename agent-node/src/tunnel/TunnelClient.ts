/**
 * The tunnel's agent side: dials the edge worker (`CONTROLLER_TUNNEL_URL`, a `ws(s)://…/tunnel`
 * URL), authenticates with an HMAC handshake over the shared `TUNNEL_SECRET`
 * (`@parley/shared` tunnel/handshake), forwards every event and runs the commands that come back.
 *
 * The tunnel is a `Subscriber` of the delivery engine: an event is delivered from the outbox, a
 * connection's events in order (up to `EVENTS_IN_FLIGHT_PER_CONNECTION` awaiting their acks),
 * and counts as delivered only when the worker acknowledges it
 * (after the conversation Durable Object stored it). While the tunnel is down, or when the
 * socket drops before the ack, the attempt reports `retry` and the engine sends it again, with
 * the same id, once the tunnel is back. Only an event that can never be stored is dead-lettered:
 * one larger than `MAX_EVENT_BYTES`, or one the worker answers `reject` to. A command's idempotency
 * key makes a repeated command run once, also across restarts (it is claimed in the agent
 * database by `MessageService`, scope `tunnel`). Reconnects use exponential backoff with full jitter.
 * Frames that do not parse are logged (rate-limited) and dropped; the socket stays up. The socket
 * itself (dialling, backoff, answers per event, heartbeat, hold-off) is the dial-out client WebSocket
 * event subscriptions use too (`events/websocket/dial-out.ts`); this class adds the handshake, the
 * commands, the stats requests and the takeover rule.
 *
 * Instances: the upgrade names this agent-node's instance id (`x-parley-instance`, `cluster/`).
 * The worker keeps one socket per instance, so several agent-nodes on one database each keep a
 * tunnel open; events go up the one whose instance holds the tunnel's delivery lease, commands
 * come down any of them.
 *
 * Takeover: the worker closes an instance's previous socket with `TUNNEL_CLOSE_REPLACED` (4000)
 * when another client authenticates with the same secret and the same instance id. The close
 * is noticed at once (a 1 s close timeout instead of ws's 30 s) and logged as an error; then the
 * client does not redial at once, which would make two holders of the secret and instance id (two
 * agent-nodes given the same INSTANCE_ID, an old process during a redeploy, or a leaked secret)
 * replace each other in a loop. It waits `replacedHoldOffMs` (default 60 s), doubled after each takeover in a row up
 * to 30 min; a connection that lasts 30 min resets that. The secret's holder that keeps the tunnel
 * is the one the operator must look at: the log says so.
 *
 * Its own late handshake is not a takeover: a proxy in front of the worker may hold an upgrade
 * (`wrangler dev`'s does while the Worker restarts) and deliver it after this client gave up on it
 * and opened a newer socket, which the worker then replaces. The close reason names the replacing
 * handshake's nonce (`replacedCloseReason`); when it is one of this client's recent handshakes,
 * the client redials at once (its newer handshake replaces the socket nobody holds) instead of
 * holding off.
 */
import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { ClientOptions } from 'ws'
import {
  DownstreamFrame,
  eventBytes,
  MAX_EVENT_BYTES,
  handshakeHeaders,
  replacingNonce,
  signTunnelHandshake,
  TUNNEL_CLOSE_REPLACED,
  type CommandFrame,
  type CommandResultFrame,
  type StatsFrame,
  type UpstreamFrame,
} from '@parley/shared'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { Logger } from '../logging/index.ts'
import type { RetryPolicy } from '../events/delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../events/delivery/subscriber.ts'
import type { PublishedEvent } from '../events/outbox/store.ts'
import { DialOutSocket } from '../events/websocket/dial-out.ts'
import type { MessageService } from '../messaging/MessageService.ts'
import { type CommandContext, commandOrderKey, runCommand } from './commands/index.ts'

export interface TunnelClientOptions {
  url: string
  secret: string
  /** This agent-node's instance id, sent on the upgrade (`x-parley-instance`). */
  instanceId?: string
  /** First reconnect delay and its cap, in milliseconds. */
  minDelayMs?: number
  maxDelayMs?: number
  /** How long an event waits for the tunnel to open, then for its ack, before it is retried; milliseconds. */
  ackTimeoutMs?: number
  /** Wait before redialling after a takeover (close 4000), doubled per takeover in a row; milliseconds. */
  replacedHoldOffMs?: number
  /** Interval of WebSocket pings that measure the round trip (`roundTripMs`), in milliseconds (default 15000). */
  pingIntervalMs?: number
}

/** Largest frame accepted from the worker, in bytes (a command carries one message body). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024
/** How long a closing socket waits for the worker's TCP close after the close handshake, in milliseconds. */
const CLOSE_TIMEOUT_MS = 1_000
/** Cap of the takeover hold-off, and the connection time that resets it; milliseconds. */
const REPLACED_HOLD_OFF_CAP_MS = 30 * 60_000
/**
 * Handshakes remembered to recognise one that arrives late (see the module comment): more than a
 * proxy can hold back while this client redials, which it does at most every `minDelayMs`.
 */
const OWN_HANDSHAKES = 256

/**
 * Events of one connection sent up before the first one's ack (`Subscriber.maxInFlight`). The
 * socket keeps them in order and the worker stores a connection's events one after another,
 * holding back those after one it failed to store (`ConnectionQueues`), so the round trips of a
 * burst overlap without reordering anything.
 */
const EVENTS_IN_FLIGHT_PER_CONNECTION = 8

/** The tunnel retries forever: what the edge has not stored is never given up. */
const TUNNEL_RETRY: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 50, maxDelayMs: 2_000 }

/** The tunnel's subscriber name in the outbox (its cursors, dead letters, metrics). */
export const TUNNEL_SUBSCRIBER = 'tunnel'

export class TunnelClient implements Subscriber {
  readonly name = TUNNEL_SUBSCRIBER
  readonly retry = TUNNEL_RETRY
  readonly maxInFlight = EVENTS_IN_FLIGHT_PER_CONNECTION
  private readonly socket: DialOutSocket<DownstreamFrame>
  /** Commands of one connection run one at a time, in the order their frames came. */
  private readonly commands = new KeyedQueue()
  /** Takeovers in a row. */
  private takeovers = 0
  /** Nonces of this client's latest handshakes, answered or not. */
  private readonly ownHandshakes = new LRUCache<string, true>({ max: OWN_HANDSHAKES })
  /** `stats-request` frames sent and not answered: id -> settles the request. */
  private readonly awaitingStats = new Map<string, (counters: StatsFrame['counters'] | Error) => void>()

  /**
   * Every agent event goes up the tunnel except delivery states (`message-state-updated`): no
   * conversation flow acts on them, and each one cost a round trip and a Durable Object write,
   * three per chat turn. Webhooks and event subscriptions still receive them.
   */
  accepts(event: PublishedEvent): boolean {
    return event.event.type !== 'message-state-updated'
  }

  constructor(
    private readonly options: TunnelClientOptions,
    private readonly messages: MessageService,
    private readonly logger: Logger,
    /**
     * What commands other than `send-message` use: the stdio MCP servers (`mcp-stdio` commands
     * reach them, what they write goes up as `mcp-stdio-message` frames) and `redactMessage`;
     * and `syncToDisk`, what a command result waits for before it goes up (`Database.syncToDisk`).
     */
    private readonly commandServices: Pick<CommandContext, 'redactMessage' | 'mcp'> & { syncToDisk?: () => Promise<void> } = {},
  ) {
    commandServices.mcp?.onMessage((frame) => this.send(frame))
    this.socket = new DialOutSocket({
      peer: 'tunnel',
      dial: async () => {
        const handshake = await signTunnelHandshake(options.secret)
        this.ownHandshakes.set(handshake.nonce, true)
        // `closeTimeout` (ws >= 8.19) is not in @types/ws yet.
        const dialOptions: ClientOptions & { closeTimeout: number } = {
          headers: handshakeHeaders(handshake, options.instanceId),
          handshakeTimeout: 10_000,
          maxPayload: MAX_FRAME_BYTES,
          closeTimeout: CLOSE_TIMEOUT_MS,
          // small JSON frames: deflating them cost about 1 ms of CPU per chat round trip
          perMessageDeflate: false,
        }
        return { url: options.url, options: dialOptions }
      },
      redial: { minDelayMs: options.minDelayMs ?? 250, maxDelayMs: options.maxDelayMs ?? 30_000 },
      delayRedialAfterClose: false,
      pingIntervalMs: options.pingIntervalMs ?? 15_000,
      frames: DownstreamFrame,
      rejection: (reason) => `rejected by the worker: ${reason}`,
      onFrame: (frame) => this.onFrame(frame),
      onOpen: () => logger.info({ url: options.url }, 'tunnel connected'),
      onClose: (code, reason, openMs) => this.onClose(code, reason, openMs),
      onDialFailed: (attempt, error) => logger.warn({ attempt, reason: error.message }, 'tunnel connection failed; retrying'),
      logger,
    })
  }

  /** Starts dialling; resolves at once (connection happens in the background). */
  start(): void {
    this.socket.start()
  }

  /** Closes the socket and stops reconnecting. */
  async stop(): Promise<void> {
    this.socket.stop(1000, 'agent shutting down')
  }

  get connected(): boolean {
    return this.socket.connected
  }

  /** Whether another client took the tunnel over and this one waits before redialling. */
  get replaced(): boolean {
    return this.socket.holdingOff
  }

  /** Number of events sent and not yet acknowledged by the worker. */
  get pendingCount(): number {
    return this.socket.pendingCount
  }

  /** Round trip of the last WebSocket ping answered, in milliseconds; undefined before the first pong. */
  get roundTripMs(): number | undefined {
    return this.socket.roundTripMs
  }

  /** Resolves when the tunnel is open (at once if it is). */
  waitUntilOpen(): Promise<void> {
    return this.socket.waitUntilOpen()
  }

  /**
   * Asks the worker's tunnel gateway for its counters (a `stats-request` frame).
   * @returns the counters by name.
   * @throws when the tunnel is not open, or closes or stays silent for `timeoutMs` first.
   */
  requestStats(timeoutMs = 2_000): Promise<StatsFrame['counters']> {
    if (!this.connected) return Promise.reject(new Error('the tunnel is not open'))
    const id = randomUUID()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`no stats within ${timeoutMs} ms`)), timeoutMs)
      const settle = (answer: StatsFrame['counters'] | Error) => {
        clearTimeout(timer)
        this.awaitingStats.delete(id)
        if (answer instanceof Error) reject(answer)
        else resolve(answer)
      }
      this.awaitingStats.set(id, settle)
      this.send({ kind: 'stats-request', id })
    })
  }

  /**
   * One attempt: waits for the tunnel to be open, sends the event and waits for its ack.
   * `retry` when the tunnel stays down, the socket closes first, or no ack comes in time;
   * `rejected` (dead-lettered by the engine) when the event is larger than `MAX_EVENT_BYTES` or the
   * worker answers `reject`: it can never be stored there, sending it again would stall its
   * conversation.
   */
  async deliver({ id, connectionId, seq, event }: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    const bytes = eventBytes(event)
    if (bytes > MAX_EVENT_BYTES) {
      const error = `event of ${bytes} bytes, more than the ${MAX_EVENT_BYTES} the tunnel carries`
      this.logger.error({ eventId: id, connectionId, type: event.type, bytes }, 'event too large for the tunnel; dead-lettered')
      return { result: 'rejected', error }
    }
    const frame: UpstreamFrame = { kind: 'event', id, connectionId, seq, event }
    this.logger.debug({ eventId: id, connectionId, seq, type: event.type }, 'event sent up the tunnel')
    const outcome = await this.socket.attempt(id, JSON.stringify(frame), this.options.ackTimeoutMs ?? 30_000, signal)
    if (outcome.result === 'acknowledged') this.logger.debug({ eventId: id }, 'event acknowledged by the worker')
    else if (outcome.result === 'rejected')
      this.logger.error({ eventId: id, reason: outcome.error }, 'the worker can never store this event; dead-lettered')
    return outcome
  }

  /**
   * The socket closed: ends the stats requests; after a takeover by another client, the hold-off
   * before the redial (none after its own late handshake).
   */
  private onClose(code: number, reason: string, openMs: number): number | undefined {
    for (const settle of [...this.awaitingStats.values()]) settle(new Error('tunnel closed before the stats'))
    if (openMs >= REPLACED_HOLD_OFF_CAP_MS) this.takeovers = 0
    if (code !== TUNNEL_CLOSE_REPLACED) {
      this.logger.info({ code, reason }, 'tunnel closed')
      return undefined
    }
    const replacing = replacingNonce(reason)
    if (replacing !== undefined && this.ownHandshakes.has(replacing)) {
      this.logger.warn(
        { code },
        'tunnel replaced by a handshake of this agent-node that arrived late (a proxy delivered it after this client had given up on it); redialling at once',
      )
      return undefined
    }
    // Another client took the tunnel: say so, and redial only after the hold-off (see the module comment).
    this.takeovers++
    const holdOffMs = Math.min((this.options.replacedHoldOffMs ?? 60_000) * 2 ** (this.takeovers - 1), REPLACED_HOLD_OFF_CAP_MS)
    this.logger.error(
      { takeovers: this.takeovers, redialInMs: holdOffMs },
      'tunnel taken over: another client authenticated with TUNNEL_SECRET and this INSTANCE_ID (a second agent-node given the same INSTANCE_ID, or a leaked secret); not redialling until the hold-off ends',
    )
    return holdOffMs
  }

  private send(frame: UpstreamFrame): void {
    this.socket.send(JSON.stringify(frame))
  }

  /** Frames other than `ack` and `reject` (the dial-out client settles those). */
  private onFrame(frame: DownstreamFrame): void {
    if (frame.kind === 'stats') this.awaitingStats.get(frame.id)?.(frame.counters)
    else if (frame.kind === 'command') void this.commands.run(commandOrderKey(frame.command), () => this.runCommand(frame))
  }

  /**
   * Runs `frame` through the command registry (`commands/`) and answers with its outcome, once
   * what the command stored is durable (a failed sync answers a failure). The
   * idempotency key goes with it: a key already used answers the first message id without
   * sending again. A failure claims no key, so a retry
   * may succeed (the failure may have been transient: a connection not completed yet).
   */
  private async runCommand(frame: CommandFrame): Promise<void> {
    let outcome: CommandResultFrame
    const ids = { commandId: frame.id, eventId: frame.eventId, idempotencyKey: frame.idempotencyKey }
    try {
      const result = await runCommand(frame.command, {
        ...this.commandServices,
        messages: this.messages,
        idempotencyKey: frame.idempotencyKey,
        commandId: frame.id,
      })
      await this.commandServices.syncToDisk?.()
      outcome = { kind: 'command-result', id: frame.id, ok: true, result }
      this.logger.debug({ ...ids, messageId: 'id' in result ? result.id : undefined }, 'tunnel command done')
    } catch (error) {
      this.logger.warn({ ...ids, err: error }, 'tunnel command failed')
      outcome = { kind: 'command-result', id: frame.id, ok: false, error: (error as Error).message }
    }
    this.send(outcome)
  }
}
