/**
 * Presentation requests as invitations (spec "Presentation request", "Presentation flow status"):
 * `create` makes a present-proof v2 request asking for every requested credential, attaches it to
 * an out-of-band invitation with a short URL, and remembers the flow. `start` follows each flow
 * and POSTs its statuses to the controller's `callbackUrl`: `scanned`, `connected`, then `ok`
 * with the claims, or `refused` / `verification-error` with a `reason` (see `outcome.ts`).
 *
 * Callback POSTs of one flow go one at a time, in order, through the outbound guard (the URL was
 * checked when the request was made, and every connection, redirects included, is checked
 * again). They are durable: each report is stored on the flow record in the same write as its
 * status, before it is POSTed, and removed once done, so reports still owed are POSTed again
 * after a restart (`start`). A report is retried like a webhook event (`events/webhooks/post.ts`
 * outcomes, the `EVENTS_*` retry policy of `events/delivery/retry.ts`): 2xx is done; 4xx is
 * refused for good and dropped; anything else is retried with backoff until the policy's attempts
 * are used up, then dropped (logged as an error). The attempt count restarts with the process.
 * Each status is reported once; a status never follows a later one.
 */
import { setTimeout as sleep } from 'node:timers/promises'
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
import { retryDelay } from '../events/delivery/retry.ts'
import { postForDelivery } from '../events/webhooks/post.ts'
import { createMessageInvitation } from '../didcomm/invitations.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { Logger } from '../logging/index.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { anonCredsProofRequest, presentationOutcome, STATUS_ORDER, type PresentationStatus } from './outcome.ts'
import { PresentationFlowRecord, type CallbackUpdate } from './PresentationFlowRecord.ts'
import { completeRequested, type RequestedCredentialInput } from './requested.ts'

/** Time allowed for one callback POST, in milliseconds. */
export const CALLBACK_TIMEOUT_MS = 10_000

/** What `POST /v1/presentation-request` asks for, both shapes brought to one. */
export interface PresentationRequestInput {
  requestedCredentials: RequestedCredentialInput[]
  ref?: string
  callbackUrl?: string
}

/** What it returns. */
export interface PresentationRequestInvitation {
  proofExchangeId: string
  url: string
  shortUrl: string
}

/** Body POSTed to `callbackUrl`: the spec's `status`, and the same value as `state`, vs-agent's name for it. */
export interface PresentationCallbackBody extends CallbackUpdate {
  ref?: string
  proofExchangeId: string
  state: CallbackUpdate['status']
}

export interface PresentationRequestsDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  shortUrls: ShortUrls
  guard: OutboundGuard
  logger: Logger
}

export class PresentationRequests {
  /** Updates of one flow run one at a time, in order. */
  private readonly updates = new KeyedQueue()
  /** The callback sender of each flow with reports owed (at most one per flow). */
  private readonly senders = new Map<string, Promise<void>>()
  /** Flows whose sender must run again when the current one ends. */
  private readonly rerun = new Set<string>()
  /** Aborted by `stop`: retries waiting stop, owed reports stay stored for the next start. */
  private readonly stopping = new AbortController()

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
      input.requestedCredentials.map((entry, index) => completeRequested(agent, entry, `requestedCredentials.${index}`)),
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
   * and resumes the callbacks still owed from before a restart.
   */
  start(): void {
    const { agent, shortUrls, logger } = this.deps
    void this.repository()
      .findByQuery(agent.context, { callbackPending: true })
      .then((flows) => {
        for (const flow of flows) this.sendCallbacks(flow.id)
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

  /**
   * Stops: waits for the status updates under way, then ends the callback senders (a POST in
   * flight is abandoned; every report still owed is stored and POSTed after the next start).
   */
  async stop(): Promise<void> {
    while (this.updates.size > 0) await this.updates.settled()
    this.stopping.abort()
    await Promise.all(this.senders.values())
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

  /** Stores `update` when it moves the flow forward, with its callback report when there is a callback, and starts sending. */
  private async report(stale: PresentationFlowRecord, update: CallbackUpdate): Promise<void> {
    const { agent } = this.deps
    const repository = this.repository()
    const flow = await repository.getById(agent.context, stale.id)
    if (!STATUS_ORDER.advances(flow.status, update.status)) return
    flow.status = update.status
    if (flow.callbackUrl) flow.pendingCallbacks = [...(flow.pendingCallbacks ?? []), update]
    await repository.update(agent.context, flow)
    if (flow.callbackUrl) this.sendCallbacks(flow.id)
  }

  /**
   * Starts the callback sender of flow `flowId`; when one runs already, it is started again once
   * that one ends (it may have looked for reports just before this one was stored).
   */
  private sendCallbacks(flowId: string): void {
    if (this.stopping.signal.aborted) return
    if (this.senders.has(flowId)) {
      this.rerun.add(flowId)
      return
    }
    const sender = this.runSender(flowId)
      .catch((error: unknown) =>
        this.deps.logger.warn({ proofExchangeId: flowId, err: error }, 'presentation callbacks interrupted; resumed on the next start'),
      )
      .finally(() => {
        this.senders.delete(flowId)
        if (this.rerun.delete(flowId)) this.sendCallbacks(flowId)
      })
    this.senders.set(flowId, sender)
  }

  /** POSTs the flow's owed reports, oldest first, each until done, refused or given up; returns when none is owed. */
  private async runSender(flowId: string): Promise<void> {
    const { agent, config, guard, logger } = this.deps
    const policy = config.eventDelivery.retry
    const { signal } = this.stopping
    let attempts = 0
    for (;;) {
      const flow = await this.repository().getById(agent.context, flowId)
      const head = flow.pendingCallbacks?.[0]
      if (!head || !flow.callbackUrl || signal.aborted) return
      const body: PresentationCallbackBody = { ref: flow.ref, proofExchangeId: flow.id, ...head, state: head.status }
      const outcome = await postForDelivery(
        flow.callbackUrl,
        JSON.stringify(body),
        {},
        { fetch: (url, init) => guard.fetch(url, init), timeoutMs: CALLBACK_TIMEOUT_MS, signal },
      )
      if (signal.aborted) return
      attempts++
      const log = { proofExchangeId: flowId, status: head.status, attempts }
      if (outcome.result === 'retry' && attempts < policy.maxAttempts) {
        logger.warn({ ...log, error: outcome.error }, 'presentation callback failed; retrying')
        await sleep(retryDelay(policy, attempts), undefined, { signal }).catch(() => undefined)
        continue
      }
      if (outcome.result !== 'acknowledged') logger.error({ ...log, error: outcome.error }, 'presentation callback given up')
      attempts = 0
      await this.enqueue(flowId, async () => {
        const current = await this.repository().getById(agent.context, flowId)
        current.pendingCallbacks = current.pendingCallbacks?.slice(1)
        await this.repository().update(agent.context, current)
      })
    }
  }

  private repository() {
    return recordRepository(this.deps.agent.context, PresentationFlowRecord)
  }
}
