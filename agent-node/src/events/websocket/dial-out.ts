/**
 * One dial-out WebSocket that carries events and gets one answer per event: what the tunnel to
 * the edge worker (`tunnel/TunnelClient.ts`) and WebSocket event subscriptions (`subscriber.ts`)
 * are both made of.
 *
 * - Dialling: `start` dials in the background and redials while the socket is down, with
 *   exponential backoff and full jitter (`exponential-backoff`); each dial asks its owner for the
 *   URL and the `ws` options afresh (a signed handshake is signed per dial). A refused handshake
 *   (HTTP answer instead of 101) fails the dial with the status and the start of the body.
 * - Attempts (`attempt`): an event's frame waits for the socket to be open, is sent, and waits
 *   for the peer's `ack` (acknowledged) or `reject` (rejected, dead-lettered by the engine); a
 *   socket that closes first, no answer within the attempt's time, or the engine's abort signal
 *   end it as `retry`. Attempts made before `start` wait for the first socket.
 * - Frames: each one the peer sends is parsed with the owner's schema; `ack` and `reject` settle
 *   their attempt, any other frame goes to the owner (`onFrame`). A frame that does not parse is
 *   logged (rate-limited) and dropped; the socket stays up.
 * - Heartbeat (with `pingIntervalMs`): a WebSocket ping at once and at that interval; each pong
 *   sets `roundTripMs`.
 * - Hold-off: after a close, the owner may name a wait before the next dial (`onClose`), e.g.
 *   the tunnel's takeover rule.
 *
 * Log lines name the peer and the owner's `logFields`, never the URL (it may carry a token).
 */
import { backOff } from 'exponential-backoff'
import WebSocket, { type ClientOptions } from 'ws'
import type { z } from 'zod'
import { parseFrame } from '@parley/shared'
import type { Logger } from '../../logging/index.ts'
import { RateLimitedLogger } from '../../logging/rate-limited.ts'
import type { DeliveryOutcome } from '../delivery/subscriber.ts'

/** The answers a peer gives to an event frame. */
type Answer = { kind: 'ack'; id: string } | { kind: 'reject'; id: string; reason: string }

export interface DialOutOptions<F extends { kind: string }> {
  /** Names the peer in log lines and errors (`tunnel`, `event subscriber`). */
  peer: string
  /** Fields every log line carries (e.g. `{ subscriber: name }`). */
  logFields?: Record<string, unknown>
  /** The URL and `ws` options of one dial (asked before each dial). */
  dial(): Promise<{ url: string; options: ClientOptions }>
  /** First redial delay and its cap, in milliseconds. */
  redial: { minDelayMs: number; maxDelayMs: number }
  /** Whether the first dial after a close waits a backoff delay (true) or dials at once. */
  delayRedialAfterClose: boolean
  /** Interval of heartbeat pings, in milliseconds; no heartbeat when absent. */
  pingIntervalMs?: number
  /** Schema of the frames the peer sends; its `ack` and `reject` frames answer events. */
  frames: z.ZodType<F>
  /** The error of an event the peer rejects, from its reason. */
  rejection(reason: string): string
  /** Every parsed frame other than `ack` and `reject`. */
  onFrame?(frame: F): void
  /** The socket is open. */
  onOpen?(): void
  /**
   * The socket closed (not after `stop`), after the attempts waiting for an answer were ended;
   * `openMs` is how long it was open. @returns a wait before redialling, in milliseconds, or
   * undefined to redial now.
   */
  onClose?(code: number, reason: string, openMs: number): number | undefined
  /** A dial failed (`attempt` counts the dials of this outage from 1). */
  onDialFailed(attempt: number, error: Error): void
  logger: Logger
}

export class DialOutSocket<F extends { kind: string }> {
  private socket?: WebSocket
  private dialling?: Promise<void>
  private stopped = false
  private holdOff?: NodeJS.Timeout
  private pingTimer?: NodeJS.Timeout
  /** Frames sent and not answered yet: event id -> settles the attempt. */
  private readonly unanswered = new Map<string, (outcome: DeliveryOutcome) => void>()
  /** Attempts and other callers waiting for the socket to open. */
  private readonly waitingForOpen = new Set<(socket: WebSocket) => void>()
  /** Every attempt not settled yet, and the abort signals already watched (one listener each, not one per attempt). */
  private readonly inFlight = new Set<(outcome: DeliveryOutcome) => void>()
  private readonly watched = new WeakSet<AbortSignal>()
  private readonly rateLimited: RateLimitedLogger
  /** Round trip of the last heartbeat ping answered, in milliseconds; undefined before the first pong. */
  roundTripMs?: number

  constructor(private readonly options: DialOutOptions<F>) {
    this.rateLimited = new RateLimitedLogger(options.logger)
  }

  /** Starts dialling in the background. */
  start(): void {
    this.stopped = false
    this.dial(false)
  }

  /** Closes the socket with `code` and `reason` and stops redialling; attempts waiting for an answer end as `retry`. */
  stop(code: number, reason: string): void {
    this.stopped = true
    clearTimeout(this.holdOff)
    this.holdOff = undefined
    clearInterval(this.pingTimer)
    this.socket?.close(code, reason)
    this.socket = undefined
  }

  /** Whether the socket is open. */
  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN
  }

  /** Whether a redial waits for a hold-off the owner asked for. */
  get holdingOff(): boolean {
    return this.holdOff !== undefined
  }

  /** Event frames sent and not answered yet. */
  get pendingCount(): number {
    return this.unanswered.size
  }

  /** Resolves when the socket is open (at once if it is). */
  waitUntilOpen(): Promise<void> {
    if (this.connected) return Promise.resolve()
    return new Promise((resolve) => this.waitingForOpen.add(() => resolve()))
  }

  /** Sends `data` when the socket is open (dropped otherwise). */
  send(data: string): void {
    this.socket?.send(data)
  }

  /**
   * One delivery attempt of the event `id` as `frame` (see the module comment).
   * @param timeoutMs how long it waits for the socket to open, then for the answer.
   */
  attempt(id: string, frame: string, timeoutMs: number, signal: AbortSignal): Promise<DeliveryOutcome> {
    return new Promise<DeliveryOutcome>((resolve) => {
      if (signal.aborted) return resolve({ result: 'retry', error: 'delivery stopped' })
      const settle = (outcome: DeliveryOutcome) => {
        clearTimeout(timer)
        this.inFlight.delete(settle)
        this.waitingForOpen.delete(send)
        if (this.unanswered.get(id) === settle) this.unanswered.delete(id)
        resolve(outcome)
      }
      const timer = setTimeout(() => settle({ result: 'retry', error: `no answer within ${timeoutMs} ms` }), timeoutMs)
      const send = (socket: WebSocket) => {
        this.unanswered.set(id, settle)
        socket.send(frame, (error) => error && settle({ result: 'retry', error: `send failed: ${error.message}` }))
      }
      this.inFlight.add(settle)
      this.watch(signal)
      if (this.connected) send(this.socket!)
      else if (this.stopped) settle({ result: 'retry', error: `${this.options.peer} stopped` })
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

  /** Dials until a socket opens (or `stop`); `again` delays the first try. */
  private dial(again: boolean): void {
    if (this.stopped || this.dialling || this.holdOff) return
    this.dialling = backOff(() => this.dialOnce(), {
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      startingDelay: this.options.redial.minDelayMs,
      maxDelay: this.options.redial.maxDelayMs,
      timeMultiple: 2,
      jitter: 'full',
      delayFirstAttempt: again,
      retry: (error: Error, attempt: number) => {
        if (!this.stopped) this.options.onDialFailed(attempt, error)
        return !this.stopped
      },
    })
      .catch(() => undefined)
      .finally(() => {
        this.dialling = undefined
      })
  }

  /** One dial: resolves once the socket is open, rejects when it fails first. */
  private async dialOnce(): Promise<void> {
    if (this.stopped) return
    const { url, options } = await this.options.dial()
    await new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url, options)
      socket.once('unexpected-response', (_request, response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body = (body + chunk.toString()).slice(0, 200)))
        response.on('error', reject)
        response.on('end', () => {
          socket.terminate()
          reject(new Error(`the ${this.options.peer} refused the WebSocket handshake: HTTP ${response.statusCode} ${body}`.trim()))
        })
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
    const { peer, logFields } = this.options
    // First: a closing socket can still fail (a protocol error of the peer), and must not throw.
    socket.on('error', (error) =>
      this.rateLimited.log('warn', `${peer}-socket-error`, { ...logFields, err: error }, `${peer} socket error`),
    )
    if (this.stopped) {
      socket.close(1001, `${peer} stopped`)
      return
    }
    this.socket = socket
    const openedAt = Date.now()
    socket.on('message', (data, isBinary) => this.onMessage(isBinary ? new Uint8Array(data as Buffer) : data.toString()))
    socket.on('close', (code, reason) => {
      clearInterval(this.pingTimer)
      if (this.socket === socket) this.socket = undefined
      for (const settle of [...this.unanswered.values()]) settle({ result: 'retry', error: `${peer} closed before the answer` })
      if (this.stopped) return
      const holdOffMs = this.options.onClose?.(code, reason.toString(), Date.now() - openedAt)
      if (holdOffMs === undefined) this.dial(this.options.delayRedialAfterClose)
      else this.holdOffFor(holdOffMs)
    })
    this.options.onOpen?.()
    if (this.options.pingIntervalMs !== undefined) this.heartbeat(socket, this.options.pingIntervalMs)
    const waiting = [...this.waitingForOpen]
    this.waitingForOpen.clear()
    for (const send of waiting) send(socket)
  }

  /** Redials only after `ms` milliseconds. */
  private holdOffFor(ms: number): void {
    this.holdOff = setTimeout(() => {
      this.holdOff = undefined
      this.dial(false)
    }, ms)
    this.holdOff.unref()
  }

  /** Pings `socket` now and every `intervalMs`; each pong sets `roundTripMs`. */
  private heartbeat(socket: WebSocket, intervalMs: number): void {
    let sentAt = 0
    const ping = () => {
      sentAt = performance.now()
      socket.ping()
    }
    socket.on('pong', () => {
      this.roundTripMs = performance.now() - sentAt
    })
    clearInterval(this.pingTimer)
    this.pingTimer = setInterval(ping, intervalMs)
    this.pingTimer.unref()
    ping()
  }

  private onMessage(data: string | Uint8Array): void {
    const { peer, logFields } = this.options
    const parsed = parseFrame(this.options.frames, data)
    if ('error' in parsed) {
      this.rateLimited.log('warn', `${peer}-frame-rejected`, { ...logFields, error: parsed.error }, `rejected frame from ${peer}`)
      return
    }
    const answer = parsed.frame as F & Partial<Answer>
    if (answer.kind === 'ack' && answer.id) this.unanswered.get(answer.id)?.({ result: 'acknowledged' })
    else if (answer.kind === 'reject' && answer.id)
      this.unanswered.get(answer.id)?.({ result: 'rejected', error: this.options.rejection(answer.reason ?? '') })
    else this.options.onFrame?.(parsed.frame)
  }
}
