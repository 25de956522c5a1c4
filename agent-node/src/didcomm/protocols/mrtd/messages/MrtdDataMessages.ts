/**
 * The MRTD answers (2060.io MRTD), each on the request's thread (`~thread.thid`):
 * `mrz-data` carries the scanned MRZ (`mrzData`: one string or one per line), `emrtd-data` the
 * chip's data groups (`dataGroups`: name -> base64).
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { IsString, ValidateBy, buildMessage } from 'class-validator'

/** The request's `@id` this answers. */
interface MrtdAnswerOptions {
  id?: string
  threadId: string
}

/** An answer on the request's thread. */
abstract class MrtdAnswerMessage extends DidCommMessage {
  constructor(options?: MrtdAnswerOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.setThread({ threadId: options.threadId })
  }
}

export class MrzDataMessage extends MrtdAnswerMessage {
  static override readonly type = parseMessageType('https://didcomm.org/mrtd/1.0/mrz-data')

  @IsValidMessageType(MrzDataMessage.type)
  override readonly type = MrzDataMessage.type.messageTypeUri

  @IsString({ each: true })
  mrzData!: string | string[]

  constructor(options?: MrtdAnswerOptions & { mrzData: string | string[] }) {
    super(options)
    if (options) this.mrzData = options.mrzData
  }
}

/** A plain object whose every value is a string. */
const IsStringRecord = () =>
  ValidateBy({
    name: 'isStringRecord',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every((entry) => typeof entry === 'string'),
      defaultMessage: buildMessage((prefix) => `${prefix}$property must be an object of base64 strings`),
    },
  })

export class EMrtdDataMessage extends MrtdAnswerMessage {
  static override readonly type = parseMessageType('https://didcomm.org/mrtd/1.0/emrtd-data')

  @IsValidMessageType(EMrtdDataMessage.type)
  override readonly type = EMrtdDataMessage.type.messageTypeUri

  @IsStringRecord()
  dataGroups!: Record<string, string>

  constructor(options?: MrtdAnswerOptions & { dataGroups: Record<string, string> }) {
    super(options)
    if (options) this.dataGroups = options.dataGroups
  }
}
