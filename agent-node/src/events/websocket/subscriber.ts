/**
 * A `Subscriber` for WebSocket subscriptions: the agent dials the subscriber's `ws(s)://` URL,
 * keeps the socket open (redialling with exponential backoff and full jitter while it is down)
 * and sends each event as an `event` frame (`frames.ts`); the subscriber answers `ack` or `reject`.
 *
 * An attempt waits for the socket to be open, sends the frame and waits for the answer: `ack`
 * acknowledges (the subscription's cursor moves past the event), `reject` dead-letters it, and
 * anything else (socket down or closed before the answer, no answer in time) is `retry`. A
 * WebSocket subscription never gives up on its own: while the subscriber is away its cursor
 * stays where it is, and once it is back delivery resumes there, each connection in `seq` order.
 * An event whose ack was lost is sent again with the same `id`, so subscribers dedupe by it.
 *
 * With a signing key (EVENTS_SIGNING_SECRET), each dial is signed like a webhook POST
 * (`../webhooks/signing.ts`): the upgrade request carries `webhook-id` (new for each dial),
 * `webhook-timestamp` and `webhook-signature`, the signed payload being the subscription's URL
 * exactly as registered, as a JSON string (`JSON.stringify(url)`: Standard Webhooks libraries
 * parse payloads as JSON). A subscriber verifies them (e.g. `new Webhook(secret).verify(
 * JSON.stringify(url), headers)`) before accepting the socket; everything on that socket then
 * comes from the agent.
 *
 * Frames that do not parse are logged (rate-limited) and dropped; the socket stays up. The URL is not logged
 * (it may carry a token); logs name the subscriber.
 */
import { randomUUID } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import { backOff } from 'exponential-backoff'
import WebSocket from 'ws'
import { parseFrame } from '@parley/shared'
import type { Logger } from '../../logging/index.ts'
import { RateLimitedLogger } from '../../logging/rate-limited.ts'
import type { RetryPolicy } from '../delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../delivery/subscriber.ts'
import type { PublishedEvent } from '../outbox/store.ts'
import { signatureHeaders } from '../webhooks/signing.ts'
import { eventFrame, SubscriberFrame } from './frames.ts'

/** Largest frame accepted from a subscriber, in bytes (acks are tiny). */
const MAX_SUBSCRIBER_FRAME_BYTES = 64 * 1024
/** Time allowed for the opening handshake, in milliseconds. */
const HANDSHAKE_TIMEOUT_MS = 10_000
/** Never dead-letter for being unreachable; the engine re-attempts quickly, each attempt waits for the socket. */
const WEBSOCKET_RETRY: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 2_000 }

export interface WebSocketSubscriberOptions {
  /** Stable subscriber name (database key), `subscription:<id>`. */
  name: string
  /** `ws://` or `wss://` URL to dial. */
  url: string
  /** Only events this accepts are sent (subscription filters). */
  accepts?: (event: PublishedEvent) => boolean
  /** Replaces DNS lookup so every address dialled is checked (`OutboundGuard.lookup`). */
  lookup?: LookupFunction
  /** How long one attempt waits for the socket to open, then for the answer; milliseconds. */
  answerTimeoutMs: number
  /** Standard Webhooks key the opening handshake is signed with (EVENTS_SIGNING_SECRET); unsigned when absent. */
  signingKey?: Buffer
  /** First redial delay and its cap, in milliseconds. */
  redial: { minDelayMs: number; maxDelayMs: number }
  logger: Logger
}

export class WebSocketSubscriber implements Subscriber {
  readonly name: string
  readonly retry = WEBSOCKET_RETRY
  readonly accepts?: (event: PublishedEvent) => boolean
  private socket?: WebSocket
  private dialling?: Promise<void>
  private stopped = true
  /** Frames sent and not answered yet: event id -> settles the attempt. */
  private readonly unanswered = new Map<string, (outcome: DeliveryOutcome) => void>()
  /** Attempts waiting for the socket to open. */
  private readonly waitingForOpen = new Set<(socket: WebSocket) => void>()
  /** Every attempt not settled yet, and the abort signals already watched (one listener each, not one per attempt). */
  private readonly inFlight = new Set<(outcome: DeliveryOutcome) => void>()
  private readonly watched = new WeakSet<AbortSignal>()

  private readonly rateLimited: RateLimitedLogger

  constructor(private readonly options: WebSocketSubscriberOptions) {
    this.name = options.name
    this.accepts = options.accepts
    this.rateLimited = new RateLimitedLogger(options.logger)
  }

  /** Starts dialling in the background. */
  start(): void {
    this.stopped = false
    this.dial(false)
  }

  /** Closes the socket and stops redialling; attempts in flight end as `retry`. */
  stop(): void {
    this.stopped = true
    this.socket?.close(1001, 'subscription stopped')
    this.socket = undefined
  }

  /** Whether the socket to the subscriber is open. */
  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN
  }

  deliver(published: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { answerTimeoutMs } = this.options
    return new Promise<DeliveryOutcome>((resolve) => {
      const settle = (outcome: DeliveryOutcome) => {
        clearTimeout(timer)
        this.inFlight.delete(settle)
        this.waitingForOpen.delete(send)
        if (this.unanswered.get(published.id) === settle) this.unanswered.delete(published.id)
        resolve(outcome)
      }
      const timer = setTimeout(() => settle({ result: 'retry', error: `no answer within ${answerTimeoutMs} ms` }), answerTimeoutMs)
      const send = (socket: WebSocket) => {
        this.unanswered.set(published.id, settle)
        socket.send(eventFrame(published), (error) => error && settle({ result: 'retry', error: `send failed: ${error.message}` }))
      }
      if (signal.aborted) return settle({ result: 'retry', error: 'delivery stopped' })
      this.inFlight.add(settle)
      this.watch(signal)
      if (this.connected) send(this.socket!)
      else if (this.stopped) settle({ result: 'retry', error: 'subscription stopped' })
      else this.waitingForOpen.add(send)
    })
  }

  /** Ends every attempt in flight when `signal` aborts (subscriber removed, shutdown). */
  private watch(signal: AbortSignal): void {
    if (this.watched.has(signal)) return
    this.watched.add(signal)
    signal.addEventListener(
      'abort',
      () => {
        for (const settle of [...this.inFlight]) settle({ result: 'retry', error: 'delivery stopped' })
      },
      { once: true },
    )
  }

  /** Dials until a socket opens (or the subscriber stops); `again` delays the first try. */
  private dial(again: boolean): void {
    if (this.stopped || this.dialling) return
    this.dialling = backOff(() => this.dialOnce(), {
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      startingDelay: this.options.redial.minDelayMs,
      maxDelay: this.options.redial.maxDelayMs,
      timeMultiple: 2,
      jitter: 'full',
      delayFirstAttempt: again,
      retry: (error: Error, attempt: number) => {
        // Warn once per outage; the redials after it are debug noise.
        if (!this.stopped)
          this.options.logger[attempt === 1 ? 'warn' : 'debug'](
            { subscriber: this.name, attempt, reason: error.message },
            'event subscriber unreachable; redialling',
          )
        return !this.stopped
      },
    })
      .catch(() => undefined)
      .finally(() => {
        this.dialling = undefined
      })
  }

  /** One dial: resolves once the socket is open, rejects when it fails first. */
  private dialOnce(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      const { url, signingKey } = this.options
      const socket = new WebSocket(url, {
        headers: signingKey ? signatureHeaders(signingKey, randomUUID(), Math.floor(Date.now() / 1000), JSON.stringify(url)) : undefined,
        lookup: this.options.lookup,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        maxPayload: MAX_SUBSCRIBER_FRAME_BYTES,
        followRedirects: false,
      })
      socket.once('unexpected-response', (_request, response) => {
        response.resume()
        socket.terminate()
        reject(new Error(`the subscriber answered the WebSocket handshake with HTTP ${response.statusCode}`))
      })
      socket.once('error', reject)
      socket.once('open', () => {
        socket.off('error', reject)
        this.attach(socket)
        resolve()
      })
    })
  }

  private attach(socket: WebSocket): void {
    // First: a closing socket can still fail (a protocol error of the peer), and must not throw.
    socket.on('error', (error) =>
      this.rateLimited.log('warn', 'socket-error', { subscriber: this.name, err: error }, 'event subscriber socket error'),
    )
    if (this.stopped) {
      socket.close(1001, 'subscription stopped')
      return
    }
    this.socket = socket
    socket.on('message', (data, isBinary) => this.onFrame(isBinary ? new Uint8Array(data as Buffer) : data.toString()))
    socket.on('close', (code) => {
      if (this.socket === socket) this.socket = undefined
      for (const settle of [...this.unanswered.values()]) settle({ result: 'retry', error: 'socket closed before the answer' })
      this.options.logger.info({ subscriber: this.name, code }, 'event subscriber disconnected')
      this.dial(true)
    })
    this.options.logger.info({ subscriber: this.name }, 'event subscriber connected')
    const waiting = [...this.waitingForOpen]
    this.waitingForOpen.clear()
    for (const send of waiting) send(socket)
  }

  private onFrame(data: string | Uint8Array): void {
    const parsed = parseFrame(SubscriberFrame, data)
    if ('error' in parsed) {
      this.rateLimited.log('warn', 'frame-rejected', { subscriber: this.name, error: parsed.error }, 'rejected frame from event subscriber')
      return
    }
    const { frame } = parsed
    const settle = this.unanswered.get(frame.id)
    if (frame.kind === 'ack') settle?.({ result: 'acknowledged' })
    else settle?.({ result: 'rejected', error: `the subscriber rejected the event: ${frame.reason}` })
  }
}
