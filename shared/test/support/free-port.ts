/** Free TCP ports for tests and local stacks (`@parley/shared/testing/free-port`). */
import { createServer } from 'node:net'

/** A port the OS reports free on 127.0.0.1 right now, never one this process was given before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer()
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
    // The kernel may hand a released port out again at once: two calls in a row (a public and
    // an admin port) must not get the same one.
    if (!handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
  }
}

/** Ports `freePort` returned in this process. */
const handedOut = new Set<number>()
