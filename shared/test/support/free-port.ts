/** Free TCP ports for tests and local stacks (`@parley/shared/testing/free-port`). */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** Lowest port `freePort` hands out below the ephemeral range: clear of the usual service ports. */
const FLOOR = 20_000

/**
 * The first port of the kernel's ephemeral range (Linux `net.ipv4.ip_local_port_range`), where it
 * picks the local port of every outgoing connection and of `listen(0)`; undefined where that file
 * does not exist (not Linux).
 */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(low) ? low : undefined
  } catch {
    return undefined
  }
}

/** Listens on `port` of 127.0.0.1 (0: the kernel picks) and closes again; resolves the port, or undefined when it is taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)))
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number }
      server.close(() => resolve(bound))
    })
  })
}

/**
 * A port free on 127.0.0.1 right now, never one this process was given before. Where the
 * ephemeral range is known and leaves room below it, the port is drawn at random from
 * [`FLOOR`, ephemeral low): a process stopped and started again on its port (a worker or an
 * agent-node restarted by a test) finds it free, because no outgoing connection of any process on
 * the machine is given a port there while it is down (one that is, or its TIME_WAIT, would keep
 * workerd from listening on it again). Elsewhere the kernel picks one.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow()
  const span = low !== undefined && low > FLOOR ? low - FLOOR : 0
  for (;;) {
    const port = await tryPort(span > 0 ? FLOOR + Math.floor(Math.random() * span) : 0)
    // The kernel may hand a released port out again at once: two calls in a row (a public and
    // an admin port) must not get the same one.
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
  }
}

/** Ports `freePort` returned in this process. */
const handedOut = new Set<number>()
