/**
 * One event through the flows, as the conversation object handles it (pure but for what the
 * flows themselves call): the flow that claims the event runs, its session patch is applied, and
 * the contextual menu is re-sent when the session's menu changed (menu/ `refreshMenu`; for an
 * authenticated user whose menu shows approval badges, with counts fresh from the approvals
 * object). The conversation commits what this returns; tests call it directly.
 */
import { applyPatch, principalOf, type Session } from '../session/index.ts'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { adminIdentities } from './authentication/roles.ts'
import { refreshMenu } from './menu/index.ts'
import { usesApprovalCounts } from './menu/menu.ts'
import { flowFor } from './registry.ts'
import type { FlowContext, RecordEntry } from './types.ts'

/** What handling one event produced: the next session, the commands in order, the record. */
export interface StepResult {
  session: Session
  commands: TunnelCommand[]
  record: RecordEntry[]
  /** The event's stored text must be redacted (`FlowResult.redact`). */
  redact: boolean
}

/** Handles `context.event` for `context.session` (`send` is provided here and collected). */
export async function handleEvent(context: Omit<FlowContext, 'send'>): Promise<StepResult> {
  const { event, session, config, connectionId } = context
  const flow = flowFor(event, session, config)
  const commands: TunnelCommand[] = []
  const result = flow ? await flow.handle({ ...context, send: (command) => commands.push(command) }) : {}
  let next = applyPatch(session, { ...(event.type === 'timer' ? { timer: undefined } : {}), ...result.session })
  const counts =
    context.approvals && next.identity !== undefined && usesApprovalCounts(config)
      ? await context.approvals.counts(principalOf(next, adminIdentities(config.flows.authentication)))
      : undefined
  const menu = refreshMenu(event, next, config, connectionId, counts)
  if (menu.command) commands.push(menu.command)
  if (menu.patch) next = applyPatch(next, menu.patch)
  return { session: next, commands, record: result.record ?? [], redact: result.redact === true }
}
