/**
 * `https://didcomm.org/mrtd/1.0/problem-report` (2060.io MRTD): the holder refused a request or
 * did not answer in time (`description.code`, see `MrtdProblemReportReason`); `~thread.pthid` is
 * the request's `@id`.
 */
import { DidCommProblemReportMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'

export class MrtdProblemReportMessage extends DidCommProblemReportMessage {
  static override readonly type = parseMessageType('https://didcomm.org/mrtd/1.0/problem-report')

  @IsValidMessageType(MrtdProblemReportMessage.type)
  override readonly type = MrtdProblemReportMessage.type.messageTypeUri
}
