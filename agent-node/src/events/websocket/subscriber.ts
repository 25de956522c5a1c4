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
 * (it may carry a token); logs name the subscriber. The socket is the dial-out client the tunnel
 * uses too (`dial-out.ts`).
 */
import { randomUUID } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import type { Logger } from '../../logging/index.ts'
import type { RetryPolicy } from '../delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../delivery/subscriber.ts'
import type { PublishedEvent } from '../outbox/store.ts'
import { signatureHeaders } from '../webhooks/signing.ts'
import { DialOutSocket } from './dial-out.ts'
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
  private readonly socket: DialOutSocket<SubscriberFrame>

  constructor(private readonly options: WebSocketSubscriberOptions) {
    this.name = options.name
    this.accepts = options.accepts
    const { url, signingKey, logger } = options
    const logFields = { subscriber: options.name }
    this.socket = new DialOutSocket({
      peer: 'event subscriber',
      logFields,
      dial: async () => ({
        url,
        options: {
          headers: signingKey ? signatureHeaders(signingKey, randomUUID(), Math.floor(Date.now() / 1000), JSON.stringify(url)) : undefined,
          lookup: options.lookup,
          handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
          maxPayload: MAX_SUBSCRIBER_FRAME_BYTES,
          followRedirects: false,
        },
      }),
      redial: options.redial,
      delayRedialAfterClose: true,
      frames: SubscriberFrame,
      rejection: (reason) => `the subscriber rejected the event: ${reason}`,
      onOpen: () => logger.info(logFields, 'event subscriber connected'),
      onClose: (code) => {
        logger.info({ ...logFields, code }, 'event subscriber disconnected')
        return undefined
      },
      // Warn once per outage; the redials after it are debug noise.
      onDialFailed: (attempt, error) =>
        logger[attempt === 1 ? 'warn' : 'debug'](
          { ...logFields, attempt, reason: error.message },
          'event subscriber unreachable; redialling',
        ),
      logger,
    })
  }

  /** Starts dialling in the background. */
  start(): void {
    this.socket.start()
  }

  /** Closes the socket and stops redialling; attempts in flight end as `retry`. */
  stop(): void {
    this.socket.stop(1001, 'subscription stopped')
  }

  /** Whether the socket to the subscriber is open. */
  get connected(): boolean {
    return this.socket.connected
  }

  deliver(published: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    return this.socket.attempt(published.id, eventFrame(published), this.options.answerTimeoutMs, signal)
  }
}
