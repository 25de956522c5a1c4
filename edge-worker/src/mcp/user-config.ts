/**
 * A user's configuration of `user-controlled` MCP servers (manifest spec "mcp", `userConfig`),
 * kept in the session as flow state of `mcp-config` (flows/mcp-config/): the values the user
 * entered per server, `secret` ones sealed (mcp/secrets.ts), and how they become request headers.
 */
import type { SecretBox } from './secrets.ts'
import type { McpServerConfig } from './types.ts'

/** One entered value: a `text` field's value as typed, a `secret` field's sealed. */
export type StoredValue = { text: string } | { sealed: string }

/** The flow state of `mcp-config` (`session.flowState['mcp-config']`). */
export interface McpConfigState {
  /** Tested and saved configurations by server name: field name → value. */
  saved?: Record<string, Record<string, StoredValue>>
  /** The configuration being asked for, if any (the menu's `configuring`). */
  pending?: {
    /** Servers still to configure, the current one first. */
    servers: string[]
    /** Index of the field of `userConfig.fields` asked for now. */
    field: number
    values: Record<string, StoredValue>
  }
}

/** The state name in `session.flowState`. */
export const MCP_CONFIG_STATE = 'mcp-config'

/** `flowState`'s `mcp-config` entry, or an empty state. */
export function mcpConfigState(flowState: Record<string, unknown>): McpConfigState {
  return (flowState[MCP_CONFIG_STATE] as McpConfigState | undefined) ?? {}
}

/** The user-controlled servers of `servers`, in order. */
export function userControlled(servers: readonly McpServerConfig[]): McpServerConfig[] {
  return servers.filter((server) => server.accessMode === 'user-controlled')
}

/** Whether some field of `server` is a `secret`. */
export function asksForSecrets(server: McpServerConfig): boolean {
  return (server.userConfig?.fields ?? []).some((field) => field.type === 'secret')
}

/** The plain values of `stored`, secrets opened with `box`. @throws when a sealed value cannot be opened. */
export async function openValues(stored: Record<string, StoredValue>, box: SecretBox | undefined): Promise<Record<string, string>> {
  const plain: Record<string, string> = {}
  for (const [name, value] of Object.entries(stored)) {
    if ('text' in value) plain[name] = value.text
    else if (box) plain[name] = await box.open(value.sealed)
    else throw new Error('MCP_SECRETS_KEY is not set: a sealed value cannot be opened')
  }
  return plain
}

/**
 * The request headers of `server` for a user with `values` (field name → plain value): the
 * server's `headers`, then each field's `headerName` (default Authorization) set to its
 * `headerTemplate` with `{value}` replaced (the value itself without a template). Pure.
 */
export function userHeaders(server: McpServerConfig, values: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = { ...server.headers }
  for (const field of server.userConfig?.fields ?? []) {
    const value = values[field.name]
    if (value === undefined) continue
    headers[field.headerName] = field.headerTemplate ? field.headerTemplate.replaceAll('{value}', value) : value
  }
  return headers
}
