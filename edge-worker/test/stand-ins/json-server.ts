/**
 * A tiny JSON-over-HTTP server on 127.0.0.1 (port 0) for the scripted model servers: one POST
 * route, JSON bodies, every other request 404 JSON.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What a route handler answers: status and JSON body. */
export interface JsonAnswer {
  status: number
  body: unknown
}

export interface JsonServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  close(): Promise<void>
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Serves `POST <path>` with `handle(body, headers)`; a body that is not JSON answers 400 with
 * `badJson()`, an unknown route 404 with `notFound(method, path)`.
 */
export async function startJsonServer(options: {
  path: string
  handle: (body: unknown, request: IncomingMessage) => Promise<JsonAnswer>
  notFound: (method: string, path: string) => unknown
  badJson: () => unknown
}): Promise<JsonServer> {
  const server = createServer(async (request, response) => {
    const send = ({ status, body }: JsonAnswer) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (request.method !== 'POST' || path !== options.path) return send({ status: 404, body: options.notFound(request.method ?? '', path) })
    let body: unknown
    try {
      body = JSON.parse(await readBody(request))
    } catch {
      return send({ status: 400, body: options.badJson() })
    }
    send(await options.handle(body, request))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
