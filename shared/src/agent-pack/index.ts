/**
 * The agent pack (the agent-pack manifest spec): its schema and the portable resolver.
 * Reading the file from disk is Node-only and lives in `@parley/shared/agent-pack/node`.
 */
export * from './defaults.ts'
export type { EnvRecord } from './env.ts'
export { resolveAgentPack, type ResolvedAgentPack } from './resolve.ts'
export * from './schema.ts'
export { AGENT_PACK_FILE_NAMES, parseAgentPackSource, type AgentPackSource } from './source.ts'
