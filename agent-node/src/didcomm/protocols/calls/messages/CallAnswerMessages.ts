/**
 * The messages that answer or close an offered call (2060.io calls), each on the offer's thread
 * (`~thread.thid` = the offer's `@id`): `call-accept` (with the answerer's signalling
 * `parameters`), `call-reject` and `call-end`.
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { IsObject } from 'class-validator'

/** Options of every message on a call's thread. */
export interface CallThreadOptions {
  id?: string
  /** The offer's `@id`. */
  threadId: string
}

/** A message on an offered call's thread. */
abstract class CallThreadMessage extends DidCommMessage {
  constructor(options?: CallThreadOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.setThread({ threadId: options.threadId })
  }
}

export class CallAcceptMessage extends CallThreadMessage {
  static override readonly type = parseMessageType('https://didcomm.org/calls/1.0/call-accept')

  @IsValidMessageType(CallAcceptMessage.type)
  override readonly type = CallAcceptMessage.type.messageTypeUri

  @IsObject()
  parameters!: Record<string, unknown>

  constructor(options?: CallThreadOptions & { parameters: Record<string, unknown> }) {
    super(options)
    if (options) this.parameters = options.parameters
  }
}

export class CallRejectMessage extends CallThreadMessage {
  static override readonly type = parseMessageType('https://didcomm.org/calls/1.0/call-reject')

  @IsValidMessageType(CallRejectMessage.type)
  override readonly type = CallRejectMessage.type.messageTypeUri
}

export class CallEndMessage extends CallThreadMessage {
  static override readonly type = parseMessageType('https://didcomm.org/calls/1.0/call-end')

  @IsValidMessageType(CallEndMessage.type)
  override readonly type = CallEndMessage.type.messageTypeUri
}
