/**
 * Flow `menu`: the contextual menu (manifest spec "flows.menu"; the items and labels: menu.ts).
 *
 * - A selection (`contextual-menu-select`) runs the selected item's action through the actions
 *   registry (actions.ts). An id the user cannot see now (an old menu), or an action no flow
 *   provides, is logged and ignored.
 * - `refreshMenu` runs after every event the conversation handles: once the connection has
 *   completed, it sends the menu the session now sees (`contextual-menu-update`) when it differs
 *   from the last one sent, and only then, so a state change that alters the menu (logging in or
 *   out, a language learnt from the profile) re-sends it and nothing else does. Once the
 *   connection has ended (`terminated`, `abandoned`), no menu is sent.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { TunnelCommand } from '@parley/shared/tunnel'
import type { ApprovalCounts } from '../../approvals/types.ts'
import { contextualMenu } from '../../commands/index.ts'
import type { Session, SessionPatch } from '../../session/index.ts'
import type { Flow, FlowEvent } from '../types.ts'
import { menuActions } from './actions.ts'
import { menuFingerprint, menuFor, visibleItems } from './menu.ts'

/** The flow's state in the session. */
interface MenuState {
  /** The connection has completed: menus may be sent. */
  connected?: boolean
  /** Fingerprint of the last menu sent (menu.ts `menuFingerprint`). */
  sent?: string
  /** The approval counts that menu was made with (menu.ts `menuFacts`). */
  counts?: ApprovalCounts
}

function stateOf(session: Session): MenuState {
  return (session.flowState.menu as MenuState | undefined) ?? {}
}

const selection = (event: FlowEvent) =>
  event.type === 'message-received' && event.message.type === 'contextual-menu-select' ? event.message.selectionId : undefined

export const menuFlow: Flow = {
  name: 'menu',
  claims: (event) => selection(event) !== undefined,
  async handle(context) {
    const { event, session, config, log } = context
    const id = selection(event)!
    const item = visibleItems(config, session).find((candidate) => candidate.id === id)
    const action = item?.action === undefined ? undefined : menuActions[item.action]
    if (!item || !action) {
      log.warn('menu selection ignored', { selectionId: id, reason: item ? `no action '${item.action ?? ''}'` : 'not in the menu shown' })
      return {}
    }
    return action(context)
  },
}

/**
 * After `event` has been handled and `session` is the result: the menu to send, if it changed,
 * and the session patch recording it; `counts` are the approval counts now (omitted: those of
 * the menu last sent). Pure.
 */
export function refreshMenu(
  event: FlowEvent,
  session: Session,
  config: AgentPackConfig,
  connectionId: string,
  counts?: ApprovalCounts,
): { command?: TunnelCommand; patch?: SessionPatch } {
  const state = stateOf(session)
  if (event.type === 'connection-state-updated' && (event.state === 'terminated' || event.state === 'abandoned')) {
    return state.connected ? { patch: { flowState: { menu: { ...state, connected: false } satisfies MenuState } } } : {}
  }
  const connected = state.connected || (event.type === 'connection-state-updated' && event.state === 'completed')
  if (!connected) return {}
  const menu = menuFor(config, session, counts)
  const fingerprint = menuFingerprint(menu)
  const known = counts ?? state.counts
  if (fingerprint === (state.sent ?? menuFingerprint(undefined))) {
    const same = state.connected && JSON.stringify(known) === JSON.stringify(state.counts)
    return same ? {} : { patch: { flowState: { menu: { ...state, connected, counts: known } satisfies MenuState } } }
  }
  return {
    command: menu && contextualMenu(connectionId, menu),
    patch: { flowState: { menu: { connected, sent: fingerprint, counts: known } satisfies MenuState } },
  }
}
