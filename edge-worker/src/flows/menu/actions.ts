/**
 * The registry of menu actions (`flows.menu.items[].action`): name → what selecting the item
 * does. An action is a flow step: it gets the flow context and returns a session patch. The MCP
 * issue adds mcp-config and abort-config here.
 */
import { myApprovalRequests, pendingApprovals } from '../approvals/index.ts'
import { authenticate, logout } from '../authentication/index.ts'
import { abortConfig, startConfig } from '../mcp-config/index.ts'
import type { FlowContext, FlowResult } from '../types.ts'

/** What a menu selection runs. */
export type MenuAction = (context: FlowContext) => Promise<FlowResult>

export const menuActions: Readonly<Record<string, MenuAction>> = {
  authenticate,
  logout,
  'my-approval-requests': myApprovalRequests,
  'pending-approvals': pendingApprovals,
  'mcp-config': startConfig,
  'abort-config': abortConfig,
}
