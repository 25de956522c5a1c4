/**
 * The flows, in order: the first that claims an event handles it (CONTROLLER.md "Shape"). A new
 * flow is one folder and one entry here.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Session } from '../session/index.ts'
import { chatFlow } from './chat/index.ts'
import type { Flow, FlowEvent } from './types.ts'
import { welcomeFlow } from './welcome/index.ts'

export const flows: readonly Flow[] = [welcomeFlow, chatFlow]

/** The flow that handles `event`: for a timer, the flow that set it; else the first that claims it. */
export function flowFor(event: FlowEvent, session: Session, config: AgentPackConfig): Flow | undefined {
  if (event.type === 'timer') {
    const owner = flows.find((flow) => flow.name === session.timer?.flow)
    return owner?.claims(event, session, config) ? owner : undefined
  }
  return flows.find((flow) => flow.claims(event, session, config))
}
