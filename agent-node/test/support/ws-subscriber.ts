/**
 * A WebSocket event subscriber for tests (the server side of a `ws://` event subscription),
 * on 127.0.0.1: it records every event frame it receives, applies each event once (dedupe by
 * `id`, the receivers' contract) and answers `ack`, unless `answer` decides otherwise
 * (`reject`, or `drop`: close the socket without answering, as a subscriber crashing after
 * processing but before acknowledging would). `stop` and `listen` take it away and bring it back
 * on the same port.
 */
import { WebSocketServer, type WebSocket } from 'ws'
import { StreamEventFrame } from '../../src/events/websocket/frames.ts'
import { conditions } from './conditions.ts'

export type Answer = 'ack' | 'reject' | 'drop'

export interface WsSubscriber {
  /** `ws://127.0.0.1:<port>/events` */
  readonly url: string
  /** Every frame received, redeliveries included. */
  readonly received: StreamEventFrame[]
  /** Events applied, each id once, in the order applied. */
  readonly applied: StreamEventFrame[]
  /** Sockets the agent opened so far. */
  readonly connections: number
  /** Resolves when `condition` holds (checked after every frame and connection). */
  until(condition: () => boolean, timeoutMs?: number): Promise<void>
  /** Closes every socket and stops listening (the subscriber goes away). */
  stop(): Promise<void>
  /** Listens again on the same port. */
  listen(): Promise<void>
}

export async function startWsSubscriber(
  answer: (frame: StreamEventFrame, deliveries: number) => Answer = () => 'ack',
): Promise<WsSubscriber> {
  const received: StreamEventFrame[] = []
  const applied: StreamEventFrame[] = []
  const seen = new Set<string>()
  const { changed, until } = conditions(
    () => `received ${JSON.stringify(received.map((f) => [f.connectionId.slice(0, 8), f.seq, f.event.type]))}`,
  )
  let connections = 0
  let port = 0
  let server: WebSocketServer | undefined

  const onConnection = (socket: WebSocket) => {
    connections++
    changed()
    socket.on('message', (data) => {
      const frame = StreamEventFrame.parse(JSON.parse(data.toString()))
      received.push(frame)
      const decision = answer(frame, received.filter((f) => f.id === frame.id).length)
      if (decision !== 'reject' && !seen.has(frame.id)) {
        seen.add(frame.id)
        applied.push(frame)
      }
      if (decision === 'ack') socket.send(JSON.stringify({ kind: 'ack', id: frame.id }))
      else if (decision === 'reject') socket.send(JSON.stringify({ kind: 'reject', id: frame.id, reason: 'not for me' }))
      else socket.terminate()
      changed()
    })
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = new WebSocketServer({ host: '127.0.0.1', port, path: '/events' })
      next.once('error', reject)
      next.once('listening', () => {
        port = (next.address() as { port: number }).port
        server = next
        resolve()
      })
      next.on('connection', onConnection)
    })
  await listen()

  return {
    get url() {
      return `ws://127.0.0.1:${port}/events`
    },
    received,
    applied,
    get connections() {
      return connections
    },
    until,
    async stop() {
      const current = server
      server = undefined
      if (!current) return
      for (const client of current.clients) client.terminate()
      await new Promise<void>((resolve) => current.close(() => resolve()))
    },
    listen,
  }
}
