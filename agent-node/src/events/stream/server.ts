/**
 * The admin event stream, `GET /v1/events` upgraded to a WebSocket on the admin server: for local
 * controllers on the private network, which dial the agent instead of exposing a receiver. Who may
 * open it is the `gate` the server is attached with (the composition gives it the admin API's
 * Host/Origin checks and bearer tokens).
 *
 * The agent sends one `event` frame per event (`../websocket/frames.ts`) in outbox order (all
 * connections interleaved as they happened, each connection in `seq` order), filtered by the
 * query (`query.ts`). The stream just advances: the client sends no acks (frames it sends are
 * ignored) and keeps the `cursor` of the last event it processed; after a disconnect it
 * reconnects with `from=<cursor>` and receives every later event. Delivery is at least once
 * (an event processed but not yet recorded by the client comes again), so clients dedupe by `id`.
 * Frames are sent one at a time, each after the previous one was written to the socket, so a
 * slow reader holds the stream back instead of filling memory.
 *
 * Retention (`retention/`) deletes delivered events after EVENTS_RETENTION_DAYS: `from=0` replays
 * the events still kept; a `from` below the newest pruned position answers the upgrade with HTTP
 * 410 `cursor_expired` (events after it are gone), naming the position to resume from instead.
 *
 * A query that does not validate answers the upgrade with HTTP 400 and the admin error envelope;
 * an upgrade on any other path gets 404, one the gate refuses its answer. Frames the client sends are bounded (4 KiB) and ignored; a protocol
 * error closes that stream only.
 */
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import WebSocket, { WebSocketServer } from 'ws'
import { refuseUpgrade as refuse, type ErrorBody } from '../../http/errors.ts'
import type { Logger } from '../../logging/index.ts'
import type { OutboxStore } from '../outbox/store.ts'
import type { EventPublisher } from '../publisher.ts'
import { matchesFilter, type EventFilter } from '../subscriptions/model.ts'
import { eventFrame } from '../websocket/frames.ts'
import { EventStreamQuery } from './query.ts'

/** The path of the stream on the admin server. */
export const EVENT_STREAM_PATH = '/v1/events'
/**
 * Decides whether an upgrade request may open the stream (`path` is the stream's path): undefined
 * lets it through, else the HTTP status and error body it is refused with.
 */
export type UpgradeGate = (request: IncomingMessage, path: string) => { status: number; body: ErrorBody } | undefined

/** Events read from the outbox per query. */
const BATCH = 100
/** How long a closing stream waits for the client's close frame, in milliseconds. */
const CLOSE_GRACE_MS = 1_000

export class EventStreamServer {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 })
  private readonly streams = new Set<Promise<void>>()

  constructor(
    private readonly outbox: OutboxStore,
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
  ) {}

  /** Takes the WebSocket upgrades of `server` (the admin server); `gate` refuses those it must. */
  attach(server: Server, gate: UpgradeGate): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head, gate))
  }

  /** Closes every stream (code 1001; cut after a second without the client's close frame) and waits for them to end. */
  async close(): Promise<void> {
    for (const client of this.sockets.clients) {
      client.close(1001, 'agent shutting down')
      setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref()
    }
    await Promise.all(this.streams)
    this.sockets.close()
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, gate: UpgradeGate): void {
    // Node removes its own listener on upgrade; until ws takes the socket over, a reset must not throw.
    socket.on('error', (error) => this.logger.debug({ err: error }, 'event stream upgrade socket error'))
    const refusal = gate(request, EVENT_STREAM_PATH)
    if (refusal) {
      refuse(socket, refusal.status, refusal.body)
      return
    }
    const url = new URL(request.url ?? '/', 'http://admin')
    if (url.pathname !== EVENT_STREAM_PATH) {
      refuse(socket, 404, { error: 'not_found', message: `no WebSocket endpoint at ${url.pathname}` })
      return
    }
    const parsed = EventStreamQuery.safeParse(Object.fromEntries(url.searchParams))
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || '(query)', message: issue.message }))
      refuse(socket, 400, { error: 'validation_error', message: issues.map((i) => `${i.field}: ${i.message}`).join('; '), issues })
      return
    }
    const { from, ...filter } = parsed.data
    // "From now on" is fixed before the client sees the stream open, so nothing it causes next is missed.
    this.startPosition(from).then(
      (start) => {
        if (typeof start !== 'number') return refuse(socket, 410, start)
        this.sockets.handleUpgrade(request, socket, head, (ws) => {
          const stream = this.stream(ws, filter, start).finally(() => this.streams.delete(stream))
          this.streams.add(stream)
        })
      },
      (error: unknown) => {
        this.logger.error({ err: error }, 'event stream could not start')
        refuse(socket, 500, { error: 'internal_error', message: 'internal error' })
      },
    )
  }

  /**
   * Where a stream asked to resume after `from` starts: the newest position when absent, `from`
   * unless events after it were pruned (then the error body of a 410).
   */
  private async startPosition(from: number | undefined): Promise<number | ErrorBody> {
    if (from === undefined) return this.outbox.newestPosition()
    const pruned = await this.outbox.prunedThrough()
    if (from === 0 || !pruned || from >= pruned.position) return from
    return {
      error: 'cursor_expired',
      message:
        `from: events after cursor ${from} up to ${pruned.position} were deleted by retention (EVENTS_RETENTION_DAYS); ` +
        `reconnect with from=${pruned.position} (or from=0) for the events still kept, or without from for new events only`,
    }
  }

  /** Sends `filter`'s events after position `from`, then live ones, until the socket closes. */
  private async stream(ws: WebSocket, filter: EventFilter, from: number): Promise<void> {
    let open = true
    let more = true
    let wake: (() => void) | undefined
    const signal = () => {
      wake?.()
      wake = undefined
    }
    ws.on('close', () => {
      open = false
      signal()
    })
    ws.on('error', (error) => this.logger.debug({ err: error }, 'event stream socket error'))
    const unsubscribe = this.publisher.onStored((events) => {
      if (!events.some((event) => matchesFilter(filter, event))) return
      more = true
      signal()
    })
    try {
      let cursor = from
      this.logger.info({ filter, from: cursor }, 'event stream opened')
      while (open) {
        more = false
        const batch = await this.outbox.eventsAfterPosition(cursor, filter, BATCH)
        if (batch.length > 0) await this.outbox.syncToDisk() // never an event a power loss could undo
        for (const event of batch) {
          if (!open) break
          if (matchesFilter(filter, event)) await send(ws, eventFrame(event)) // not internal events
          cursor = event.position
        }
        if (open && batch.length < BATCH && !more) await new Promise<void>((resolve) => (wake = resolve))
      }
    } catch (error) {
      if (open) {
        this.logger.error({ err: error }, 'event stream failed')
        ws.close(1011, 'internal error')
      }
    } finally {
      unsubscribe()
    }
  }
}

/** Sends `data` and resolves once it is written. */
function send(ws: WebSocket, data: string): Promise<void> {
  return new Promise((resolve, reject) => ws.send(data, (error) => (error ? reject(error) : resolve())))
}
