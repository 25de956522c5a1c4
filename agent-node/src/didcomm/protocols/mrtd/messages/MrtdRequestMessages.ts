/**
 * The MRTD requests (2060.io MRTD): `mrz-data-request` asks the holder to scan a travel
 * document's machine-readable zone, `emrtd-data-request` to read its chip. Their `@id` is the
 * thread the answer comes on; `~thread.pthid` may name the flow they belong to.
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'

/** Options of both requests. */
export interface MrtdRequestOptions {
  id?: string
  parentThreadId?: string
}

/** A request, optionally within a flow's thread. */
abstract class MrtdRequestMessage extends DidCommMessage {
  constructor(options?: MrtdRequestOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    if (options.parentThreadId) this.setThread({ parentThreadId: options.parentThreadId })
  }
}

export class MrzDataRequestMessage extends MrtdRequestMessage {
  static override readonly type = parseMessageType('https://didcomm.org/mrtd/1.0/mrz-data-request')

  @IsValidMessageType(MrzDataRequestMessage.type)
  override readonly type = MrzDataRequestMessage.type.messageTypeUri
}

export class EMrtdDataRequestMessage extends MrtdRequestMessage {
  static override readonly type = parseMessageType('https://didcomm.org/mrtd/1.0/emrtd-data-request')

  @IsValidMessageType(EMrtdDataRequestMessage.type)
  override readonly type = EMrtdDataRequestMessage.type.messageTypeUri
}
