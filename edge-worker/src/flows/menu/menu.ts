/**
 * The contextual menu (manifest spec "flows.menu"), as pure functions: which items a session
 * sees (`visibleWhen`), their labels in the user's language (`labelKey` in
 * `languages.<lang>.strings` or the built-in texts, else `label`) with their badge count, and the
 * whole menu as a `contextual-menu-update` body, whose title is the ROOT_TITLE text.
 *
 * When the pack lists no items and authentication is enabled, the menu holds the two fixed
 * entries hologram-ai-agent's packs expect: CREDENTIAL (action `authenticate`, for guests) and
 * LOGOUT (action `logout`, once authenticated).
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { ContextualMenuUpdateMessageBody } from '@parley/shared/messages'
import { textFor } from '../../i18n/index.ts'
import type { ApprovalCounts } from '../../approvals/types.ts'
import type { Session } from '../../session/index.ts'
import { isConfiguring } from '../mcp-config/index.ts'

/** One configured menu item (`flows.menu.items[]`). */
export type MenuItem = AgentPackConfig['flows']['menu']['items'][number]

/** The menu the wallet shows: its title and options (ids are the items' ids). */
export type Menu = Omit<ContextualMenuUpdateMessageBody, 'connectionId' | 'type'>

/**
 * What `visibleWhen` and `badge` are evaluated against. `configuring`: the MCP configuration flow
 * is asking for values (flows/mcp-config/). The two approval counts come from the approvals object
 * (flows/step.ts asks for them after each event when the menu uses them) and are kept in the
 * session with the menu last sent; a guest's are 0.
 */
export interface MenuFacts {
  authenticated: boolean
  configuring: boolean
  approvalRequestCount: number
  pendingApprovalCount: number
}

/** The facts of `session`, with `counts` when given, else the counts of the menu last sent (see `MenuFacts`). */
export function menuFacts(session: Session, counts?: ApprovalCounts): MenuFacts {
  const authenticated = session.identity !== undefined
  const known = counts ?? (session.flowState.menu as { counts?: ApprovalCounts } | undefined)?.counts
  return {
    authenticated,
    configuring: isConfiguring(session),
    approvalRequestCount: authenticated ? (known?.approvalRequestCount ?? 0) : 0,
    pendingApprovalCount: authenticated ? (known?.pendingApprovalCount ?? 0) : 0,
  }
}

/** Whether the menu shows anything that depends on the approval counts (a badge, or an approvals `visibleWhen`). */
export function usesApprovalCounts(config: AgentPackConfig): boolean {
  return menuItems(config).some(
    (item) => item.badge !== undefined || item.visibleWhen === 'hasApprovalRequests' || item.visibleWhen === 'hasPendingApprovals',
  )
}

/** Whether an item with `visibleWhen` (default `always`) is shown under `facts`. */
export function isVisible(visibleWhen: MenuItem['visibleWhen'], facts: MenuFacts): boolean {
  switch (visibleWhen ?? 'always') {
    case 'always':
      return true
    case 'authenticated':
      return facts.authenticated
    case 'unauthenticated':
      return !facts.authenticated
    case 'configuring':
      return facts.configuring
    case 'notConfiguring':
      return !facts.configuring
    case 'hasApprovalRequests':
      return facts.approvalRequestCount > 0
    case 'hasPendingApprovals':
      return facts.pendingApprovalCount > 0
  }
}

/** The fixed entries used when the pack lists no items and authentication is enabled. */
const AUTHENTICATION_ITEMS: MenuItem[] = [
  { id: 'authenticate', labelKey: 'CREDENTIAL', action: 'authenticate', visibleWhen: 'unauthenticated' },
  { id: 'logout', labelKey: 'LOGOUT', action: 'logout', visibleWhen: 'authenticated' },
]

/** The configured items: `flows.menu.items`, else the fixed authentication entries when authentication is enabled. */
export function menuItems(config: AgentPackConfig): readonly MenuItem[] {
  if (config.flows.menu.items.length > 0) return config.flows.menu.items
  return config.flows.authentication.enabled ? AUTHENTICATION_ITEMS : []
}

/** The items `session` sees now (with `counts`, else those of the menu last sent). */
export function visibleItems(config: AgentPackConfig, session: Session, counts?: ApprovalCounts): MenuItem[] {
  const facts = menuFacts(session, counts)
  return menuItems(config).filter((item) => isVisible(item.visibleWhen, facts))
}

/** The label of `item` in `language`: its `labelKey` text, else `label`, else its id; with ` (n)` for a badge count above zero. */
export function itemLabel(config: AgentPackConfig, language: string, item: MenuItem, facts: MenuFacts): string {
  const label = (item.labelKey ? textFor(config, language, item.labelKey) : undefined) ?? item.label ?? item.id
  const count = item.badge ? facts[item.badge] : 0
  return count > 0 ? `${label} (${count})` : label
}

/** The menu `session` sees (with `counts`, else those of the menu last sent), or undefined when it has no item (no menu is sent then). */
export function menuFor(config: AgentPackConfig, session: Session, counts?: ApprovalCounts): Menu | undefined {
  const items = visibleItems(config, session, counts)
  if (items.length === 0 && menuItems(config).length === 0) return undefined
  const language = session.language ?? config.metadata.defaultLanguage
  const facts = menuFacts(session, counts)
  return {
    title: textFor(config, language, 'ROOT_TITLE'),
    options: items.map((item) => ({ id: item.id, title: itemLabel(config, language, item, facts) })),
  }
}

/** A stable fingerprint of `menu`, kept in the session to tell whether a new menu differs from the last one sent. */
export function menuFingerprint(menu: Menu | undefined): string {
  return JSON.stringify(menu ?? null)
}
