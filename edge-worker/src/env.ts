/**
 * The Worker's bindings (wrangler.toml): Durable Object namespaces, vars and secrets. Every
 * string here also feeds the agent-pack resolver, so the spec's env overrides (COMPAT_MODEL, ...)
 * work as Worker vars or secrets.
 */
import type { Approvals } from './approvals/index.ts'
import type { Conversation } from './conversation/index.ts'
import type { Directory } from './directory/index.ts'
import type { McpServerHub } from './mcp-hub/index.ts'
import type { TunnelGateway } from './tunnel-gateway/index.ts'

export interface Env {
  TUNNEL_GATEWAY: DurableObjectNamespace<TunnelGateway>
  CONVERSATION: DurableObjectNamespace<Conversation>
  DIRECTORY: DurableObjectNamespace<Directory>
  APPROVALS: DurableObjectNamespace<Approvals>
  /** One object per admin-controlled MCP server: its shared connection (mcp-hub/). */
  MCP_SERVER_HUB: DurableObjectNamespace<McpServerHub>
  /** Shared HMAC key of the tunnel handshake (secret). Without it the tunnel refuses every agent. */
  TUNNEL_SECRET?: string
  /** Key of the chat-completions-compatible API (secret). */
  COMPAT_API_KEY?: string
  /** Base URL of the chat-completions-compatible API, e.g. `http://127.0.0.1:8080/v1`. */
  COMPAT_BASE_URL?: string
  /** Comma-separated CIDR ranges that pack-configured tools may reach although private or loopback (as agent-node's). */
  OUTBOUND_ALLOWED_NETWORKS?: string
  /**
   * Key of the `secret` values users enter for user-controlled MCP servers (secret; any string,
   * e.g. `openssl rand -base64 32`). Unset: servers that ask for a secret cannot be configured.
   */
  MCP_SECRETS_KEY?: string
  /**
   * Days a conversation's handled events, their messages and its sent commands are kept
   * (conversation/retention.ts; decimals allowed). Unset or `0`: forever.
   */
  CONVERSATION_RETENTION_DAYS?: string
  /** `debug`, `info`, `warn` or `error`; default `info`. */
  LOG_LEVEL?: string
  /** Any other var: the agent-pack env overrides and `${VAR}` placeholders read them. */
  [name: string]: unknown
}
