/**
 * The tunnel's agent side: dials the edge worker (`CONTROLLER_TUNNEL_URL`, a `ws(s)://…/tunnel`
 * URL), authenticates with an HMAC handshake over the shared `TUNNEL_SECRET`
 * (`@parley/shared` tunnel/handshake), forwards every event and runs the commands that come back.
 *
 * The tunnel is a `Subscriber` of the delivery engine: an event is delivered from the outbox,
 * one at a time per connection, and counts as delivered only when the worker acknowledges it
 * (after the conversation Durable Object stored it). While the tunnel is down, or when the
 * socket drops before the ack, the attempt reports `retry` and the engine sends it again, with
 * the same id, once the tunnel is back. Only an event that can never be stored is dead-lettered:
 * one larger than `MAX_EVENT_BYTES`, or one the worker answers `reject` to. A command's idempotency
 * key makes a repeated command run once, also across restarts (it is claimed in the agent
 * database by `MessageService`, scope `tunnel`). Reconnects use exponential backoff with full jitter.
 * Frames that do not parse are logged and dropped; the socket stays up.
 */
import { backOff } from 'exponential-backoff'
import WebSocket from 'ws'
import {
  DownstreamFrame,
  eventBytes,
  MAX_EVENT_BYTES,
  handshakeHeaders,
  parseFrame,
  signTunnelHandshake,
  type CommandFrame,
  type CommandResultFrame,
  type UpstreamFrame,
} from '@parley/shared'
import type { Logger } from '../logging/index.ts'
import type { RetryPolicy } from '../events/delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../events/delivery/subscriber.ts'
import type { PublishedEvent } from '../events/outbox/store.ts'
import type { MessageService } from '../messages/MessageService.ts'

export interface TunnelClientOptions {
  url: string
  secret: string
  /** First reconnect delay and its cap, in milliseconds. */
  minDelayMs?: number
  maxDelayMs?: number
  /** How long an event waits for the tunnel to open, then for its ack, before it is retried; milliseconds. */
  ackTimeoutMs?: number
}

/** The tunnel retries forever: what the edge has not stored is never given up. */
const TUNNEL_RETRY: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 50, maxDelayMs: 2_000 }

export class TunnelClient implements Subscriber {
  readonly name = 'tunnel'
  readonly retry = TUNNEL_RETRY
  private socket?: WebSocket
  private stopped = false
  /** Events sent and not yet acknowledged: id -> settles the attempt. */
  private readonly awaitingAck = new Map<string, (outcome: DeliveryOutcome) => void>()
  private connectLoop?: Promise<void>
  private readonly openListeners = new Set<() => void>()

  constructor(
    private readonly options: TunnelClientOptions,
    private readonly messages: MessageService,
    private readonly logger: Logger,
  ) {}

  /** Starts dialling; resolves at once (connection happens in the background). */
  start(): void {
    this.stopped = false
    this.reconnect()
  }

  /** Closes the socket and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true
    this.socket?.close(1000, 'agent shutting down')
    this.socket = undefined
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN
  }

  /** Number of events sent and not yet acknowledged by the worker. */
  get pendingCount(): number {
    return this.awaitingAck.size
  }

  /** Resolves when the tunnel is open (at once if it is). */
  waitUntilOpen(): Promise<void> {
    if (this.connected) return Promise.resolve()
    return new Promise((resolve) => this.openListeners.add(resolve))
  }

  /**
   * One attempt: waits for the tunnel to be open, sends the event and waits for its ack.
   * `retry` when the tunnel stays down, the socket closes first, or no ack comes in time;
   * `rejected` (dead-lettered by the engine) when the event is larger than `MAX_EVENT_BYTES` or the
   * worker answers `reject`: it can never be stored there, sending it again would stall its
   * conversation.
   */
  async deliver({ id, connectionId, seq, event }: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    const timeoutMs = this.options.ackTimeoutMs ?? 30_000
    const bytes = eventBytes(event)
    if (bytes > MAX_EVENT_BYTES) {
      const error = `event of ${bytes} bytes, more than the ${MAX_EVENT_BYTES} the tunnel carries`
      this.logger.error({ eventId: id, connectionId, type: event.type, bytes }, 'event too large for the tunnel; dead-lettered')
      return { result: 'rejected', error }
    }
    return new Promise<DeliveryOutcome>((resolve) => {
      const settle = (outcome: DeliveryOutcome) => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.openListeners.delete(onOpen)
        if (this.awaitingAck.get(id) === settle) this.awaitingAck.delete(id)
        resolve(outcome)
      }
      const onAbort = () => settle({ result: 'retry', error: 'delivery stopped' })
      const timer = setTimeout(() => settle({ result: 'retry', error: `no acknowledgement within ${timeoutMs} ms` }), timeoutMs)
      const onOpen = () => {
        this.awaitingAck.set(id, settle)
        this.send({ kind: 'event', id, connectionId, seq, event })
      }
      signal.addEventListener('abort', onAbort, { once: true })
      if (this.connected) onOpen()
      else this.openListeners.add(onOpen)
    })
  }

  private reconnect(): void {
    if (this.stopped || this.connectLoop) return
    this.connectLoop = backOff(() => this.connectOnce(), {
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      startingDelay: this.options.minDelayMs ?? 250,
      maxDelay: this.options.maxDelayMs ?? 30_000,
      timeMultiple: 2,
      jitter: 'full',
      delayFirstAttempt: false,
      retry: (error: Error, attempt: number) => {
        this.logger.warn({ attempt, reason: error.message }, 'tunnel connection failed; retrying')
        return !this.stopped
      },
    })
      .catch(() => undefined)
      .finally(() => {
        this.connectLoop = undefined
      })
  }

  /** One dial: resolves once the socket is open, rejects if it fails before that. */
  private async connectOnce(): Promise<void> {
    if (this.stopped) return
    const headers = handshakeHeaders(await signTunnelHandshake(this.options.secret))
    await new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(this.options.url, { headers, handshakeTimeout: 10_000 })
      socket.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => reject(new Error(`worker refused the tunnel: HTTP ${res.statusCode} ${body.slice(0, 200)}`)))
      })
      socket.once('error', (error) => reject(error))
      socket.once('open', () => {
        this.attach(socket)
        resolve()
      })
    })
  }

  private attach(socket: WebSocket): void {
    this.socket = socket
    socket.on('error', (error) => this.logger.warn({ err: error }, 'tunnel socket error'))
    socket.on('message', (data, isBinary) => this.onFrame(isBinary ? new Uint8Array(data as Buffer) : data.toString()))
    socket.on('close', (code, reason) => {
      if (this.socket === socket) this.socket = undefined
      for (const settle of [...this.awaitingAck.values()]) settle({ result: 'retry', error: 'tunnel closed before the acknowledgement' })
      this.logger.info({ code, reason: reason.toString() }, 'tunnel closed')
      this.reconnect()
    })
    this.logger.info({ url: this.options.url }, 'tunnel connected')
    const listeners = [...this.openListeners]
    this.openListeners.clear()
    for (const listener of listeners) listener()
  }

  private send(frame: UpstreamFrame): void {
    this.socket?.send(JSON.stringify(frame))
  }

  private onFrame(data: string | Uint8Array): void {
    const parsed = parseFrame(DownstreamFrame, data)
    if ('error' in parsed) {
      this.logger.warn({ error: parsed.error }, 'rejected tunnel frame')
      return
    }
    const { frame } = parsed
    if (frame.kind === 'ack') this.awaitingAck.get(frame.id)?.({ result: 'acknowledged' })
    else if (frame.kind === 'reject') {
      this.logger.error({ eventId: frame.id, reason: frame.reason }, 'the worker can never store this event; dead-lettered')
      this.awaitingAck.get(frame.id)?.({ result: 'rejected', error: `rejected by the worker: ${frame.reason}` })
    } else void this.runCommand(frame)
  }

  /**
   * Runs `frame` and answers with its outcome. The idempotency key goes with it: a key already
   * used answers the first message id without sending again. A failure claims no key, so a retry
   * may succeed (the failure may have been transient: a connection not completed yet).
   */
  private async runCommand(frame: CommandFrame): Promise<void> {
    let outcome: CommandResultFrame
    try {
      const { id } = await this.messages.send(frame.command.message, { scope: 'tunnel', key: frame.idempotencyKey })
      outcome = { kind: 'command-result', id: frame.id, ok: true, result: { id } }
    } catch (error) {
      this.logger.warn({ commandId: frame.id, err: error }, 'tunnel command failed')
      outcome = { kind: 'command-result', id: frame.id, ok: false, error: (error as Error).message }
    }
    this.send(outcome)
  }
}
