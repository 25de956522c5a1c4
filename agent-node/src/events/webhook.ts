/**
 * Delivery of events to the controller's webhook receiver: `POST ${EVENTS_BASE_URL}/<topic>`
 * with the event body as JSON (spec "Events").
 *
 * Events of one connection are posted strictly one after another, in sequence order; different
 * connections proceed in parallel. Each POST has a timeout. A 2xx acknowledges; anything else
 * is logged. Retries, backoff and dead letters come with the durable outbox.
 */
import type { Logger } from '../logging/index.ts'
import type { EventSink, PublishedEvent } from './publisher.ts'

/** Time allowed for one webhook POST, in milliseconds. */
export const WEBHOOK_TIMEOUT_MS = 10_000

export class WebhookSink implements EventSink {
  readonly name = 'webhook'
  /** Tail of each connection's delivery chain; removed when the chain drains. */
  private readonly chains = new Map<string, Promise<void>>()

  constructor(private readonly baseUrl: string, private readonly logger: Logger) {}

  deliver(published: PublishedEvent): void {
    const previous = this.chains.get(published.connectionId) ?? Promise.resolve()
    const next = previous.then(() => this.post(published))
    this.chains.set(published.connectionId, next)
    void next.then(() => {
      if (this.chains.get(published.connectionId) === next) this.chains.delete(published.connectionId)
    })
  }

  /** Resolves when every event handed over so far has had its POST answered or failed. */
  async drain(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values())
  }

  private async post({ id, event, connectionId, seq }: PublishedEvent): Promise<void> {
    const url = `${this.baseUrl}/${event.type}`
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-parley-event-id': id },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      })
      await response.body?.cancel()
      if (!response.ok) this.logger.warn({ url, status: response.status, eventId: id, connectionId, seq }, 'webhook answered non-2xx')
    } catch (error) {
      this.logger.warn({ url, eventId: id, connectionId, seq, err: error }, 'webhook delivery failed')
    }
  }
}
