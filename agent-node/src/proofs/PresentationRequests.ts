/**
 * Presentation requests as invitations (spec "Presentation request", "Presentation flow status"):
 * `create` makes a present-proof v2 request asking for every requested credential, attaches it to
 * an out-of-band invitation with a short URL, and remembers the flow. `start` follows each flow
 * and POSTs its statuses to the controller's `callbackUrl`: `scanned`, `connected`, then `ok`
 * with the claims, or `refused` / `verification-error` with a `reason` (see `outcome.ts`).
 *
 * Callback POSTs of one flow go one at a time, in order, through the outbound guard (the URL was
 * checked when the request was made, and every connection, redirects included, is checked
 * again). A failed POST is logged, not retried. Each status is reported once; a status never
 * follows a later one.
 */
import {
  DidCommConnectionEventTypes,
  DidCommDidExchangeState,
  DidCommProofEventTypes,
  type DidCommConnectionStateChangedEvent,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import type { Claim } from '@parley/shared'
import type { AgentNodeConfig } from '../config/index.ts'
import type { CredentialTypes } from '../credentials/CredentialTypes.ts'
import { UnknownCredentialDefinitionError } from '../credentials/CredentialTypes.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { createMessageInvitation } from '../didcomm/invitations.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { Logger } from '../logging/index.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { anonCredsProofRequest, presentationOutcome, STATUS_RANK, type PresentationStatus } from './outcome.ts'
import { PresentationFlowRecord, type RequestedCredential } from './PresentationFlowRecord.ts'

/** Time allowed for one callback POST, in milliseconds. */
export const CALLBACK_TIMEOUT_MS = 10_000

/** What `POST /v1/presentation-request` asks for, both shapes brought to one. */
export interface PresentationRequestInput {
  requestedCredentials: Omit<RequestedCredential, 'id'>[]
  ref?: string
  callbackUrl?: string
}

/** What it returns. */
export interface PresentationRequestInvitation {
  proofExchangeId: string
  url: string
  shortUrl: string
}

/** Body POSTed to `callbackUrl`. */
export interface PresentationCallbackBody {
  ref?: string
  proofExchangeId: string
  status: PresentationStatus
  claims?: Claim[]
  reason?: string
}

export interface PresentationRequestsDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  credentialTypes: CredentialTypes
  shortUrls: ShortUrls
  guard: OutboundGuard
  logger: Logger
}

export class PresentationRequests {
  /** Tail of each flow's report chain. */
  private readonly chains = new Map<string, Promise<void>>()

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
    await Promise.all(input.requestedCredentials.map((entry, index) => this.checkRequested(entry, `requestedCredentials.${index}.attributes`)))

    const { message, proofRecord } = await agent.modules.didcomm.proofs.createRequest({
      protocolVersion: 'v2',
      proofFormats: { anoncreds: anonCredsProofRequest(input.requestedCredentials) },
    })
    const invitation = await createMessageInvitation(agent, config, message)
    const flow = new PresentationFlowRecord({
      id: proofRecord.id,
      origin: 'invitation',
      requestedCredentials: input.requestedCredentials.map((entry, index) => ({ id: String(index), ...entry })),
      outOfBandId: invitation.outOfBandId,
      ref: input.ref,
      callbackUrl: input.callbackUrl,
    })
    await this.repository().save(agent.context, flow)
    return { proofExchangeId: proofRecord.id, url: invitation.url, shortUrl: await shortUrls.create(invitation) }
  }

  /** Follows every invitation flow: short URL opened, connection states, proof exchange states. */
  start(): void {
    const { agent, shortUrls } = this.deps
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
        if (!flow || flow.origin !== 'invitation') return
        const outcome = await presentationOutcome(agent, record, flow.requestedCredentials)
        if (!outcome) return
        if (outcome.status === 'ok') await this.report(flow, { status: 'ok', claims: [...outcome.claims.values()].flat() })
        else await this.report(flow, { status: outcome.status, reason: outcome.reason })
      })
    })
  }

  /** Resolves when every report started so far has been POSTed (or failed). */
  async drain(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values())
  }

  /** A definition we created must have the attributes; any other must at least resolve. */
  private async checkRequested(entry: Omit<RequestedCredential, 'id'>, field: string): Promise<void> {
    const { credentialTypes, agent } = this.deps
    if (await credentialTypes.find(entry.credentialDefinitionId)) {
      await credentialTypes.checkAttributes(entry.credentialDefinitionId, entry.attributes, field)
      return
    }
    const resolved = await agent.modules.anoncreds.getCredentialDefinition(entry.credentialDefinitionId).catch(() => undefined)
    if (!resolved?.credentialDefinition) throw new UnknownCredentialDefinitionError(entry.credentialDefinitionId)
  }

  private reportByOutOfBand(outOfBandId: string, status: PresentationStatus): void {
    void (async () => {
      const flow = await this.repository().findSingleByQuery(this.deps.agent.context, { outOfBandId, origin: 'invitation' })
      if (flow) this.enqueue(flow.id, async () => this.report(flow, { status }))
    })().catch((error: unknown) => this.deps.logger.warn({ outOfBandId, err: error }, 'could not look up the presentation flow'))
  }

  /** Runs `task` after the flow's earlier tasks. */
  private enqueue(flowId: string, task: () => Promise<void>): void {
    const next = (this.chains.get(flowId) ?? Promise.resolve())
      .then(task)
      .catch((error: unknown) => this.deps.logger.warn({ proofExchangeId: flowId, err: error }, 'presentation flow update failed'))
    this.chains.set(flowId, next)
    void next.then(() => {
      if (this.chains.get(flowId) === next) this.chains.delete(flowId)
    })
  }

  /** Stores `status` when it moves the flow forward and POSTs it to the callback. */
  private async report(stale: PresentationFlowRecord, update: Omit<PresentationCallbackBody, 'ref' | 'proofExchangeId'>): Promise<void> {
    const { agent, guard, logger } = this.deps
    const repository = this.repository()
    const flow = await repository.getById(agent.context, stale.id)
    if (flow.status && STATUS_RANK[update.status] <= STATUS_RANK[flow.status]) return
    flow.status = update.status
    await repository.update(agent.context, flow)
    if (!flow.callbackUrl) return
    const body: PresentationCallbackBody = { ref: flow.ref, proofExchangeId: flow.id, ...update }
    try {
      const response = await guard.fetch(flow.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
      })
      await response.body?.cancel()
      if (!response.ok) logger.warn({ proofExchangeId: flow.id, status: update.status, httpStatus: response.status }, 'presentation callback answered non-2xx')
    } catch (error) {
      logger.warn({ proofExchangeId: flow.id, status: update.status, err: error }, 'presentation callback failed')
    }
  }

  private repository() {
    return recordRepository(this.deps.agent.context, PresentationFlowRecord)
  }
}
