/**
 * The only place Durable Object stubs are looked up. Modules of one Durable Object never import
 * another's module: they reach it through these functions and its RPC types (`import type` in
 * env.ts), so the objects stay free of import cycles.
 */
import type { Env } from './env.ts'

/** Name of the single tunnel gateway object: one tunnel per Worker. */
const TUNNEL_GATEWAY_NAME = 'tunnel'
/** Name of the single directory object. */
const DIRECTORY_NAME = 'directory'
/** Name of the single approvals object. */
const APPROVALS_NAME = 'approvals'

/** The Conversation object of DIDComm connection `connectionId`. */
export function conversationFor(env: Env, connectionId: string): ReturnType<Env['CONVERSATION']['get']> {
  return env.CONVERSATION.get(env.CONVERSATION.idFromName(connectionId))
}

/** The tunnel gateway object. */
export function tunnelGateway(env: Env): ReturnType<Env['TUNNEL_GATEWAY']['get']> {
  return env.TUNNEL_GATEWAY.get(env.TUNNEL_GATEWAY.idFromName(TUNNEL_GATEWAY_NAME))
}

/** The shared connection object of admin-controlled MCP server `serverName` (mcp-hub/). */
export function mcpServerHub(env: Env, serverName: string): ReturnType<Env['MCP_SERVER_HUB']['get']> {
  return env.MCP_SERVER_HUB.get(env.MCP_SERVER_HUB.idFromName(serverName))
}

/** The user directory object (identities → connections and roles). */
export function directory(env: Env): ReturnType<Env['DIRECTORY']['get']> {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName(DIRECTORY_NAME))
}

/** The approvals object (approval requests across users). */
export function approvals(env: Env): ReturnType<Env['APPROVALS']['get']> {
  return env.APPROVALS.get(env.APPROVALS.idFromName(APPROVALS_NAME))
}
