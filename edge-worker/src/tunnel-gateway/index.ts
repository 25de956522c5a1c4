/** The tunnel gateway Durable Object: agent-node's authenticated WebSocket into the Worker. */
import type { Env } from '../env.ts'
import type { TunnelGateway } from './TunnelGateway.ts'

export { CLOSE_REPLACED, TunnelGateway } from './TunnelGateway.ts'

/** Name of the single gateway object: one tunnel per Worker. */
const TUNNEL_GATEWAY_NAME = 'tunnel'

/** The tunnel gateway object. */
export function tunnelGateway(env: Env): DurableObjectStub<TunnelGateway> {
  return env.TUNNEL_GATEWAY.get(env.TUNNEL_GATEWAY.idFromName(TUNNEL_GATEWAY_NAME))
}
