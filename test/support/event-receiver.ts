/**
 * A controller's webhook receiver for tests: records every `POST /<topic>` body (spec "Events")
 * and answers 204. Binds 127.0.0.1 on a free port.
 */
import { createServer, type Server } from 'node:http'

export interface ReceivedEvent {
  topic: string
  body: Record<string, unknown>
  headers: Record<string, string | string[] | undefined>
}

export interface EventReceiver {
  /** Base URL to use as EVENTS_BASE_URL. */
  url: string
  events: ReceivedEvent[]
  /** Resolves with the first recorded event (past or future) matching `predicate`. */
  waitFor(predicate: (event: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>
  close(): Promise<void>
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const events: ReceivedEvent[] = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end()
        return
      }
      try {
        events.push({ topic: (req.url ?? '/').slice(1), body: JSON.parse(body), headers: req.headers })
        res.writeHead(204).end()
      } catch {
        res.writeHead(400).end()
      }
      for (const waiter of waiters) waiter()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate)
          if (!found) return false
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.body))}`))
        }, timeoutMs)
        if (!check()) waiters.add(check)
      })
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
