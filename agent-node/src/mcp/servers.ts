/**
 * The stdio MCP servers agent-node runs (manifest spec "mcp", `transport: stdio`), read from
 * agent-node's own copy of the agent pack: the folder AGENT_PACK_PATH names, resolved the way the
 * worker resolves it (placeholders, then the MCP_SERVERS_CONFIG override of the whole list). The
 * worker never sends a command line: this list is the only source of what may be run.
 */
import { AGENT_PACK_PATH, resolveAgentPack, type EnvRecord } from '@parley/shared/agent-pack'
import { loadAgentPackFileSync } from '@parley/shared/agent-pack/node'
import { resolve } from 'node:path'

/** One stdio server: what agent-node spawns under `name`. */
export interface StdioServerConfig {
  /** The pack's `name`: the only thing the worker may say to reach it. */
  name: string
  command: string
  args: string[]
  /** Environment of the process, on top of the SDK's small default set (PATH, HOME, USER, SHELL, TERM, LOGNAME). */
  env: Record<string, string>
}

/**
 * Reads the stdio servers from the pack in `env.AGENT_PACK_PATH` (a folder; none when unset or
 * without a manifest file) with `env`'s overrides (MCP_SERVERS_CONFIG). Servers of other
 * transports are left to the worker.
 * @returns the servers, and `warnings` about the `mcp` section and the file (server names are
 *   unique once resolved: a repeated one is dropped with a warning); never throws for a bad pack,
 *   only when the file cannot be read.
 */
export function loadStdioServers(env: EnvRecord): { servers: StdioServerConfig[]; warnings: string[] } {
  const dir = env[AGENT_PACK_PATH]
  const source = typeof dir === 'string' && dir !== '' ? loadAgentPackFileSync(resolve(dir)) : undefined
  const resolved = resolveAgentPack(source, env, { notActedOn: [] })
  const warnings = resolved.warnings.filter(
    (warning) => warning.startsWith('mcp') || warning.includes('MCP_SERVERS_CONFIG') || (source && warning.includes(source.path)),
  )
  const servers = resolved.config.mcp.servers.flatMap((server): StdioServerConfig[] =>
    server.transport === 'stdio' && server.command !== undefined
      ? [{ name: server.name, command: server.command, args: server.args ?? [], env: server.env ?? {} }]
      : [],
  )
  return { servers, warnings }
}
