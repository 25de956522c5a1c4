/**
 * The Worker's configuration: the agent pack bundled at build time (`#agent-pack`, by default
 * `src/generated/agent-pack.ts`, written by `scripts/build-agent-pack.ts`), resolved against the
 * Worker's own vars and secrets, so overrides and secrets are never baked into the bundle.
 */
import { resolveAgentPack, type AgentPackConfig } from '@parley/shared/agent-pack'
import { agentPackSource } from '#agent-pack'
import type { Env } from '../env.ts'
import { createLogger } from '../logging/index.ts'

const resolved = new WeakMap<Env, AgentPackConfig>()

/**
 * The resolved agent pack for `env`: built once per `env` object (per isolate in practice), its
 * warnings logged then. Holds `llm.apiKey`: pass it down, never log it.
 */
export function workerConfig(env: Env): AgentPackConfig {
  const cached = resolved.get(env)
  if (cached) return cached
  const { config, warnings } = resolveAgentPack(agentPackSource, env)
  const log = createLogger('config', env.LOG_LEVEL)
  for (const warning of warnings) log.warn('agent pack', { warning, source: agentPackSource?.path ?? null })
  resolved.set(env, config)
  return config
}
