/**
 * Short URLs for invitations (spec: `{public_url}/s?id=<uuid>`, "the one to render as a QR
 * code"). Each lives `expirySeconds` (SHORT_URL_EXPIRY_SECONDS); an expired one is deleted when
 * asked for and answers like an unknown one. Whoever wants to know when a short URL is opened
 * (presentation flows report `scanned`) subscribes with `onResolved`.
 */
import type { DidcommAgent } from '../didcomm/agent.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { ShortUrlRecord } from './ShortUrlRecord.ts'

/** An invitation to shorten: its long URL, its JSON and its out-of-band record. */
export interface ShortenableInvitation {
  url: string
  invitation: Record<string, unknown>
  outOfBandId: string
}

export class ShortUrls {
  private readonly listeners = new Set<(record: ShortUrlRecord) => void>()

  constructor(
    private readonly agent: DidcommAgent,
    private readonly publicUrl: string,
    private readonly expirySeconds: number,
  ) {}

  /** Stores `invitation` and returns its short URL. */
  async create(invitation: ShortenableInvitation): Promise<string> {
    const record = new ShortUrlRecord({ ...invitation, expiresAt: new Date(Date.now() + this.expirySeconds * 1000).toISOString() })
    await this.repository().save(this.agent.context, record)
    return `${this.publicUrl}/s?id=${record.id}`
  }

  /** The live short URL `id`, or undefined when unknown or expired; tells the `onResolved` listeners. */
  async resolve(id: string): Promise<ShortUrlRecord | undefined> {
    const repository = this.repository()
    const record = await repository.findById(this.agent.context, id)
    if (!record) return undefined
    if (Date.parse(record.expiresAt) <= Date.now()) {
      await repository.delete(this.agent.context, record)
      return undefined
    }
    for (const listener of this.listeners) listener(record)
    return record
  }

  /** Calls `listener` each time a live short URL is resolved. */
  onResolved(listener: (record: ShortUrlRecord) => void): void {
    this.listeners.add(listener)
  }

  private repository() {
    return recordRepository(this.agent.context, ShortUrlRecord)
  }
}
