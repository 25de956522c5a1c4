/**
 * Stdio MCP servers run by agent-node (manifest spec "mcp", `transport: stdio`): the list from
 * agent-node's own agent pack, the processes and the relay the tunnel's `mcp-stdio` command uses.
 */
export { loadStdioServers, type StdioServerConfig } from './servers.ts'
export { DEFAULT_RESTART_POLICY, SERVER_EXITED_CODE, StdioServer, type RestartPolicy, type ServerMessageListener } from './StdioServer.ts'
export { McpStdioSupervisor, UnknownMcpServerError } from './StdioSupervisor.ts'
