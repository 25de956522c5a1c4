/**
 * What the MCP transports of this Worker use: the outbound guard for sse and streamable-http,
 * and the slot of the stdio relay (mcp/stdio/ `createStdioRelayTransport(serverName, deps)`, bound
 * here to its dependencies once it exists; until then a `stdio` server answers each call with
 * "no stdio relay is available").
 */
import type { Env } from '../env.ts'
import type { Logger } from '../logging/index.ts'
import { workerGuardedFetch } from '../net/outbound.ts'
import type { StdioTransportMaker, TransportDeps } from './types.ts'

/** The transport dependencies for `env`; `stdio` is the relay maker when one is given. */
export function transportDeps(env: Env, log: Pick<Logger, 'error'>, stdio?: StdioTransportMaker): TransportDeps {
  return { fetch: workerGuardedFetch(env.OUTBOUND_ALLOWED_NETWORKS, log), stdio }
}
