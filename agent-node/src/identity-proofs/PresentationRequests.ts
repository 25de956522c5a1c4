/**
 * Presentation requests as invitations (spec "Presentation request", "Presentation flow status"):
 * `create` makes a present-proof v2 request asking for every requested credential, attaches it to
 * an out-of-band invitation with a short URL, and remembers the flow. `start` follows each flow
 * and POSTs its statuses to the controller's `callbackUrl`: `scanned`, `connected`, then `ok`
 * with the claims, or `refused` / `verification-error` with a `reason` (see `outcome.ts`).
 *
 * Callbacks are durable: each report is stored on the flow record in the same write as its
 * status, then handed to the event outbox as an internal event and removed from the record; the
 * delivery engine POSTs it (`callbacks.ts`: retries with stored attempts, dead letters, replay).
 * Reports still on a record after a crash are handed over at the next `start`. Each status is
 * reported once; a status never follows a later one.
 */
import {
  DidCommConnectionEventTypes,
  DidCommDidExchangeState,
  DidCommProofEventTypes,
  type DidCommConnectionStateChangedEvent,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { EventPublisher } from '../events/publisher.ts'
import { createMessageInvitation } from '../didcomm/invitations.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { Logger } from '../logging/index.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { anonCredsProofRequest, presentationOutcome, STATUS_ORDER, type PresentationStatus } from './outcome.ts'
import { PresentationFlowRecord, type CallbackUpdate } from './PresentationFlowRecord.ts'
import { callbackLane, PRESENTATION_CALLBACK_TOPIC, type PresentationCallbackEvent } from './callbacks.ts'
import { completeRequested, requestedFieldsAt, type RequestedCredentialInput, type RequestedFields } from './requested.ts'

/** What `POST /v1/presentation-request` asks for, both shapes brought to one. */
export interface PresentationRequestInput {
  requestedCredentials: RequestedCredentialInput[]
  /** Where each entry's lists sit in the request body, for errors (default `requestedCredentials.<i>.…`). */
  fields?: RequestedFields[]
  ref?: string
  callbackUrl?: string
}

/** What it returns. */
export interface PresentationRequestInvitation {
  proofExchangeId: string
  url: string
  shortUrl: string
}

export interface PresentationRequestsDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  shortUrls: ShortUrls
  guard: OutboundGuard
  /** Where owed callback reports go (delivered by `PresentationCallbackSubscriber`). */
  events: EventPublisher
  logger: Logger
}

export class PresentationRequests {
  /** Updates of one flow run one at a time, in order. */
  private readonly updates = new KeyedQueue()

  constructor(private readonly deps: PresentationRequestsDeps) {}

  /**
   * Creates the request, its invitation and short URL.
   * @throws UnsafeUrlError when `callbackUrl` may not be called; UnknownCredentialDefinitionError
   *   when a definition neither is one of ours nor resolves; ClaimsMismatchError when one of our
   *   types lacks a requested attribute.
   */
  async create(input: PresentationRequestInput): Promise<PresentationRequestInvitation> {
    const { agent, config, guard, shortUrls } = this.deps
    if (input.callbackUrl) await guard.check(input.callbackUrl)
    const requested = await Promise.all(
      input.requestedCredentials.map((entry, index) =>
        completeRequested(agent, entry, input.fields?.[index] ?? requestedFieldsAt(`requestedCredentials.${index}`)),
      ),
    )

    const { message, proofRecord } = await agent.modules.didcomm.proofs.createRequest({
      protocolVersion: 'v2',
      proofFormats: { anoncreds: anonCredsProofRequest(requested) },
    })
    const invitation = await createMessageInvitation(agent, config, message)
    const flow = new PresentationFlowRecord({
      id: proofRecord.id,
      origin: 'invitation',
      requestedCredentials: requested.map((entry, index) => ({ id: String(index), ...entry })),
      outOfBandId: invitation.outOfBandId,
      ref: input.ref,
      callbackUrl: input.callbackUrl,
    })
    await this.repository().save(agent.context, flow)
    return { proofExchangeId: proofRecord.id, url: invitation.url, shortUrl: await shortUrls.create(invitation) }
  }

  /**
   * Follows every invitation flow (short URL opened, connection states, proof exchange states)
   * and hands over the callback reports a crash left on flow records.
   */
  start(): void {
    const { agent, shortUrls, logger } = this.deps
    void this.repository()
      .findByQuery(agent.context, { callbackPending: true })
      .then((flows) => {
        for (const flow of flows) void this.enqueue(flow.id, () => this.handOver(flow.id))
      })
      .catch((error: unknown) => logger.error({ err: error }, 'could not resume presentation callbacks'))
    shortUrls.onResolved((record) => this.reportByOutOfBand(record.outOfBandId, 'scanned'))
    agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
      const { outOfBandId, state } = payload.connectionRecord
      if (!outOfBandId) return
      if (state === DidCommDidExchangeState.RequestReceived) this.reportByOutOfBand(outOfBandId, 'scanned')
      if (state === DidCommDidExchangeState.Completed) this.reportByOutOfBand(outOfBandId, 'connected')
    })
    agent.events.on<DidCommProofStateChangedEvent>(DidCommProofEventTypes.ProofStateChanged, ({ payload }) => {
      const record = payload.proofRecord
      this.enqueue(record.id, async () => {
        const flow = await this.repository().findById(agent.context, record.id)
        if (flow?.origin !== 'invitation') return
        const outcome = await presentationOutcome(agent, record, flow.requestedCredentials)
        if (!outcome) return
        if (outcome.status === 'ok') {
          const predicates = [...outcome.predicates.values()].flat()
          await this.report(flow, {
            status: 'ok',
            claims: [...outcome.claims.values()].flat(),
            ...(predicates.length > 0 ? { predicates } : {}),
          })
        } else await this.report(flow, { status: outcome.status, reason: outcome.reason })
      })
    })
  }

  /** Stops: waits for the status updates under way (their callback reports are in the outbox then). */
  async stop(): Promise<void> {
    while (this.updates.size > 0) await this.updates.settled()
  }

  private reportByOutOfBand(outOfBandId: string, status: PresentationStatus): void {
    void (async () => {
      const flow = await this.repository().findSingleByQuery(this.deps.agent.context, { outOfBandId, origin: 'invitation' })
      if (flow) this.enqueue(flow.id, async () => this.report(flow, { status }))
    })().catch((error: unknown) => this.deps.logger.warn({ outOfBandId, err: error }, 'could not look up the presentation flow'))
  }

  /** Runs `task` after the flow's earlier tasks (every write of a flow record goes through here). Never rejects. */
  private enqueue(flowId: string, task: () => Promise<void>): Promise<void> {
    return this.updates
      .run(flowId, task)
      .catch((error: unknown) => this.deps.logger.warn({ proofExchangeId: flowId, err: error }, 'presentation flow update failed'))
  }

  /** Stores `update` when it moves the flow forward, with its callback report when there is a callback, and hands the report over. */
  private async report(stale: PresentationFlowRecord, update: CallbackUpdate): Promise<void> {
    const { agent } = this.deps
    const repository = this.repository()
    const flow = await repository.getById(agent.context, stale.id)
    if (!STATUS_ORDER.advances(flow.status, update.status)) return
    flow.status = update.status
    if (flow.callbackUrl) flow.pendingCallbacks = [...(flow.pendingCallbacks ?? []), update]
    await repository.update(agent.context, flow)
    if (flow.callbackUrl) await this.handOver(flow.id)
  }

  /**
   * Appends the flow's stored reports to the outbox (oldest first, in the flow's lane), then
   * removes them from the record. A crash in between appends them again at the next start: the
   * callback may then get a report twice (at least once, like every event).
   */
  private async handOver(flowId: string): Promise<void> {
    const { agent, events } = this.deps
    const flow = await this.repository().getById(agent.context, flowId)
    const owed = flow.pendingCallbacks ?? []
    if (!flow.callbackUrl || owed.length === 0) return
    for (const update of owed) {
      const report: PresentationCallbackEvent = {
        type: PRESENTATION_CALLBACK_TOPIC,
        callbackUrl: flow.callbackUrl,
        body: { ref: flow.ref, proofExchangeId: flow.id, ...update, state: update.status },
      }
      await events.publishInternal(callbackLane(flow.id), report)
    }
    flow.pendingCallbacks = undefined
    await this.repository().update(agent.context, flow)
  }

  private repository() {
    return recordRepository(this.deps.agent.context, PresentationFlowRecord)
  }
}
