/** What the approvals flow and the menu use of the approvals object (approvals/ RPC), as a port. */
import type { Actor, ApprovalAction, ApprovalCounts, ApprovalRequest, ApprovalSubmission, ResolveOutcome } from '../../approvals/types.ts'

export interface ApprovalsPort {
  submit(input: ApprovalSubmission): Promise<ApprovalRequest>
  resolve(id: string, action: ApprovalAction, actor: Actor): Promise<ResolveOutcome>
  counts(actor: Actor): Promise<ApprovalCounts>
  mine(identity: string | undefined): Promise<ApprovalRequest[]>
  actionable(actor: Actor): Promise<ApprovalRequest[]>
}
