/**
 * A controller's webhook receiver for tests: records every `POST /<topic>` body (spec "Events")
 * and answers 204, or what `options.status` decides (fault tests). `events` holds the requests
 * answered 2xx, `requests` every request. Binds 127.0.0.1 on a free port.
 */
import { createServer, type Server } from 'node:http'

export interface ReceivedEvent {
  topic: string
  body: Record<string, unknown>
  headers: Record<string, string | string[] | undefined>
  /** The body exactly as received (signatures cover these bytes). */
  raw: string
  /** The status answered. */
  status: number
}

export interface EventReceiverOptions {
  /** Status to answer a request with (default 204); may wait to simulate a slow controller. */
  status?: (request: { topic: string; body: Record<string, unknown>; headers: ReceivedEvent['headers'] }) => number | Promise<number>
}

export interface EventReceiver {
  /** Base URL to use as EVENTS_BASE_URL. */
  url: string
  events: ReceivedEvent[]
  requests: ReceivedEvent[]
  /** Resolves with the first recorded event (past or future) matching `predicate`. */
  waitFor(predicate: (event: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>
  close(): Promise<void>
}

export async function startEventReceiver(options: EventReceiverOptions = {}): Promise<EventReceiver> {
  const events: ReceivedEvent[] = []
  const requests: ReceivedEvent[] = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', async () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end()
        return
      }
      let parsed: Record<string, unknown>
      try {
        parsed = JSON.parse(body)
      } catch {
        res.writeHead(400).end()
        return
      }
      const topic = (req.url ?? '/').slice(1)
      const status = (await options.status?.({ topic, body: parsed, headers: req.headers })) ?? 204
      const received = { topic, body: parsed, headers: req.headers, raw: body, status }
      requests.push(received)
      if (status >= 200 && status < 300) events.push(received)
      res.writeHead(status).end()
      for (const waiter of [...waiters]) waiter()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    requests,
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
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
