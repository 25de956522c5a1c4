/** `https://didcomm.org/action-menu/1.0/problem-report` (Aries RFC 0035 within RFC 0509). */
import { DidCommProblemReportMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'

const PROBLEM_REPORT = parseMessageType('https://didcomm.org/action-menu/1.0/problem-report')

export class ActionMenuProblemReportMessage extends DidCommProblemReportMessage {
  @IsValidMessageType(PROBLEM_REPORT)
  override readonly type = PROBLEM_REPORT.messageTypeUri
  static override readonly type = PROBLEM_REPORT
}
