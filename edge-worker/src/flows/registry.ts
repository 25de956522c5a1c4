/**
 * The flows, in order: the first that claims an event handles it. A new
 * flow is one folder and one entry here.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Session } from '../session/index.ts'
import { approvalsFlow } from './approvals/index.ts'
import { authenticationFlow } from './authentication/index.ts'
import { chatFlow } from './chat/index.ts'
import { mcpConfigFlow } from './mcp-config/index.ts'
import { menuFlow } from './menu/index.ts'
import type { Flow, FlowEvent } from './types.ts'
import { welcomeFlow } from './welcome/index.ts'

/**
 * Order matters: the authentication gates come before `chat`, so a guest's message that a gate
 * stops never reaches the model; `mcp-config` before `chat`, so a configuration value never
 * reaches it either.
 */
export const flows: readonly Flow[] = [welcomeFlow, menuFlow, authenticationFlow, approvalsFlow, mcpConfigFlow, chatFlow]

/** The flow that handles `event`: for a timer, the flow that set it; else the first that claims it. */
export function flowFor(event: FlowEvent, session: Session, config: AgentPackConfig): Flow | undefined {
  if (event.type === 'timer') {
    const owner = flows.find((flow) => flow.name === session.timer?.flow)
    return owner?.claims(event, session, config) ? owner : undefined
  }
  return flows.find((flow) => flow.claims(event, session, config))
}
