/**
 * The agent pack (spec "Controller Configuration Manifest"): its schema, the portable resolver,
 * the variables it reads, vendor aliases and secret masking. Reading the file from disk is
 * Node-only and lives in `@parley/shared/agent-pack/node`.
 */
export * from './aliases.ts'
export * from './defaults.ts'
export { NOT_ACTED_ON_AT_THE_EDGE } from './edge-support.ts'
export { AGENT_PACK_SCHEMA_FILE, agentPackJsonSchema } from './json-schema.ts'
export { MASK, maskSecrets } from './mask.ts'
export { pickEnv, referencedVariables } from './referenced.ts'
export type { EnvRecord } from './env.ts'
export { resolveAgentPack, type ResolveOptions, type ResolvedAgentPack } from './resolve.ts'
export * from './schema/index.ts'
export { AGENT_PACK_FILE_NAMES, parseAgentPackSource, type AgentPackSource, type AgentPackSyntaxError } from './source.ts'
export * from './variables.ts'
