/**
 * Presentation callbacks as one more subscriber of the delivery engine (`events/delivery/`): each
 * status report owed to a flow's `callbackUrl` is an internal event (`events/outbox/internal.ts`,
 * topic `internal.presentation-callback`) in the flow's own lane, so a flow's reports go one at a
 * time, in order, and each is retried like a webhook event: the outcomes of
 * `events/webhooks/post.ts` (2xx done; 4xx refused for good; anything else retried with backoff)
 * under the `EVENTS_*` retry policy. The attempts and the next attempt's time are stored with the
 * lane's cursor, so they survive a restart; a report refused or given up is a dead letter of
 * subscriber `presentation-callbacks`, listed and replayed through the admin API like any other.
 * A report of a flow deleted since (`DELETE /v1/presentations/{id}`) is dropped unPOSTed.
 * Every POST goes through the outbound guard (the URL was checked when the request was made, and
 * every connection, redirects included, is checked again).
 */
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { RetryPolicy } from '../events/delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../events/delivery/subscriber.ts'
import { internalEvent, type InternalEvent } from '../events/outbox/internal.ts'
import type { PublishedEvent } from '../events/outbox/store.ts'
import { postForDelivery } from '../events/webhooks/post.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { PresentationFlowRecord, type CallbackUpdate } from './PresentationFlowRecord.ts'

/** Time allowed for one callback POST, in milliseconds. */
export const CALLBACK_TIMEOUT_MS = 10_000

/** The internal topic of presentation callbacks. */
export const PRESENTATION_CALLBACK_TOPIC = 'internal.presentation-callback'

/** Body POSTed to `callbackUrl`: the spec's `status`, and the same value as `state`, vs-agent's name for it. */
export interface PresentationCallbackBody extends CallbackUpdate {
  ref?: string
  proofExchangeId: string
  state: CallbackUpdate['status']
}

/** One report owed: where it goes and what is POSTed. */
export interface PresentationCallbackEvent extends InternalEvent {
  type: typeof PRESENTATION_CALLBACK_TOPIC
  callbackUrl: string
  body: PresentationCallbackBody
}

/** The lane of flow `flowId`'s reports (in place of a connection id). */
export function callbackLane(flowId: string): string {
  return `presentation-flow:${flowId}`
}

/** POSTs each owed report to its callback URL (see the module comment). */
export class PresentationCallbackSubscriber implements Subscriber {
  readonly name = 'presentation-callbacks'
  readonly topic = PRESENTATION_CALLBACK_TOPIC

  /**
   * @param retry the `EVENTS_*` retry policy (`config.eventDelivery.retry`).
   * @param agent whose storage holds the flows (a deleted flow's reports are dropped).
   */
  constructor(
    readonly retry: RetryPolicy,
    private readonly guard: OutboundGuard,
    private readonly agent: DidcommAgent,
  ) {}

  async deliver(published: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    const report = internalEvent<PresentationCallbackEvent>(published, PRESENTATION_CALLBACK_TOPIC)
    if (!report) return { result: 'rejected', error: `not a ${PRESENTATION_CALLBACK_TOPIC} event` }
    const flows = recordRepository(this.agent.context, PresentationFlowRecord)
    if (!(await flows.findById(this.agent.context, report.body.proofExchangeId))) return { result: 'acknowledged' } // deleted: dropped
    return postForDelivery(
      report.callbackUrl,
      JSON.stringify(report.body),
      {},
      { fetch: (url, init) => this.guard.fetch(url, init), timeoutMs: CALLBACK_TIMEOUT_MS, signal },
    )
  }
}
