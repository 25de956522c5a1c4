/**
 * A short URL (`{public_url}/s?id=<uuid>`, spec "Endpoints"): the invitation it stands for and
 * when it stops working.
 */
import { randomUUID } from 'node:crypto'
import { BaseRecord } from '@credo-ts/core'

type ShortUrlTags = { outOfBandId: string }

export interface ShortUrlProps {
  /** The long invitation URL browsers are redirected to. */
  url: string
  /** The out-of-band invitation message as JSON, for wallets that ask for JSON. */
  invitation: Record<string, unknown>
  /** The out-of-band record the invitation belongs to. */
  outOfBandId: string
  /** ISO 8601 instant after which the short URL answers 404. */
  expiresAt: string
}

export class ShortUrlRecord extends BaseRecord<ShortUrlTags> {
  static override readonly type = 'ParleyShortUrl'
  override readonly type = ShortUrlRecord.type

  url!: string
  invitation!: Record<string, unknown>
  outOfBandId!: string
  expiresAt!: string

  constructor(props?: ShortUrlProps) {
    super()
    if (props) {
      this.id = randomUUID()
      this.createdAt = new Date()
      Object.assign(this, props)
    }
  }

  getTags(): ShortUrlTags {
    return { ...this._tags, outOfBandId: this.outOfBandId }
  }
}
