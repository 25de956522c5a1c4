/** The tunnel gateway Durable Object: agent-node's authenticated WebSocket into the Worker. */
export { CLOSE_REPLACED, TunnelGateway } from './TunnelGateway.ts'
