/**
 * What the Worker builds once per isolate from its configuration and lends every conversation:
 * the chat model, the tools registry and the outbound guard. Problems are logged once, then.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Env } from './env.ts'
import { createChatModel, type ChatModel } from './llm/index.ts'
import { createLogger } from './logging/index.ts'
import { type GuardedFetch, workerGuardedFetch } from './net/outbound.ts'
import { buildTools, type Tool } from './tools/index.ts'

export interface WorkerServices {
  model?: ChatModel
  tools: readonly Tool[]
  fetch: GuardedFetch
}

const built = new WeakMap<Env, WorkerServices>()

/** The services for `env` and its resolved `config`, built on first use. */
export function workerServices(env: Env, config: AgentPackConfig): WorkerServices {
  const cached = built.get(env)
  if (cached) return cached
  const log = createLogger('config', env.LOG_LEVEL)
  const { tools, warnings } = buildTools(config)
  for (const warning of warnings) log.warn('agent pack', { warning })
  const fetch = workerGuardedFetch(env.OUTBOUND_ALLOWED_NETWORKS, log)
  const model = createChatModel(config.llm)
  if (!model)
    log.warn('no language model configured: free-text messages are answered with LLM_NOT_CONFIGURED', { provider: config.llm.provider })
  const services = { model, tools, fetch }
  built.set(env, services)
  return services
}
