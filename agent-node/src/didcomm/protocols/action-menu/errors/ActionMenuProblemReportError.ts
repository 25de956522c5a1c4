/**
 * A menu message the service refuses. Thrown from a handler, Credo's dispatcher answers the peer
 * with the action-menu problem report it carries.
 */
import { DidCommProblemReportError } from '@credo-ts/didcomm'
import { ActionMenuProblemReportMessage } from '../messages/index.ts'

/**
 * Problem codes: `timeout` (the responder has no menu any more, RFC 0509 "unresolved questions";
 * a requester clears its menu and may request a new one) and `unknown-option` (a perform named
 * no option of the current menu).
 */
export type ActionMenuProblemCode = 'timeout' | 'unknown-option'

export class ActionMenuProblemReportError extends DidCommProblemReportError {
  override problemReport: ActionMenuProblemReportMessage

  constructor(message: string, problemCode: ActionMenuProblemCode) {
    super(message, { problemCode })
    this.problemReport = new ActionMenuProblemReportMessage({ description: { en: message, code: problemCode } })
  }
}
