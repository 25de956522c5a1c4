/**
 * Identity proofs (present-proof v2, AnonCreds format):
 * - `identity-proof-request` -> one proof request on the connection asking for every requested
 *   item (each restricted to its credential definition: its attributes, all of the schema's when
 *   omitted, and its predicates); the items are remembered with the exchange, whose thread is
 *   the message id;
 * - when that exchange ends -> `identity-proof-submit` with one submitted item per requested
 *   item: `verified: true` with its revealed `claims` and proven `predicates`, or `verified:
 *   false` with `errorCode` (a final status of `identity-proofs/outcome.ts`: `refused`,
 *   `no-compatible-credentials`, `verification-error`, `unspecified-error`) and `reason`;
 * - `identity-proof-result` -> the verdict on that exchange: `ack` when every item is `ok`, else a
 *   `problem-report` with the items' descriptions (the exchange then ends `declined`). The agent
 *   does not acknowledge a presentation of an `identity-proof-request` by itself: the user's
 *   wallet waits for the controller's verdict.
 */
import { randomUUID } from 'node:crypto'
import {
  DidCommAutoAcceptProof,
  DidCommProofEventTypes,
  DidCommProofExchangeRepository,
  DidCommProofState,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import { requestedProofItemId, type SubmittedProofItem } from '@parley/shared'
import { anonCredsProofRequest, presentationOutcome } from '../../identity-proofs/outcome.ts'
import { completeRequested, requestedFieldsAt } from '../../identity-proofs/requested.ts'
import { PresentationFlowRecord } from '../../identity-proofs/PresentationFlowRecord.ts'
import { recordRepository } from '../../wallet/storage/repository.ts'
import type { MessageReceiver, MessageSender } from '../contract.ts'
import { proofV2, sendExchangeMessage } from './protocol-messages.ts'

/**
 * Items without `attributes` ask for every attribute of their schema (vs-agent's behaviour);
 * names that are not attributes of the schema make the message `errored`. Each item's
 * `description` becomes part of the request's comment.
 */
export const sendIdentityProofRequest: MessageSender<'identity-proof-request'> = async (body, context) => {
  const { agent } = context
  const requestedCredentials = await Promise.all(
    body.requestedProofItems.map(async (item, index) => ({
      id: requestedProofItemId(item, index),
      ...(await completeRequested(agent, item, requestedFieldsAt(`requestedProofItems.${index}`))),
    })),
  )
  const descriptions = body.requestedProofItems.flatMap((item) => (item.description ? [item.description] : []))
  const { message, proofRecord } = await proofV2(agent).createRequest(agent.context, {
    connectionRecord: context.connection,
    proofFormats: { anoncreds: anonCredsProofRequest(requestedCredentials) },
    autoAcceptProof: DidCommAutoAcceptProof.Never,
    ...(descriptions.length > 0 ? { comment: descriptions.join('; ') } : {}),
  })
  await recordRepository(agent.context, PresentationFlowRecord).save(
    agent.context,
    new PresentationFlowRecord({ id: proofRecord.id, origin: 'message', requestedCredentials }),
  )
  const exchange = {
    record: proofRecord,
    save: () => agent.dependencyManager.resolve(DidCommProofExchangeRepository).update(agent.context, proofRecord),
  }
  await sendExchangeMessage(context, message, exchange, body.threadId)
}

/** Thrown (state `errored`) when `identity-proof-result` names no exchange awaiting a verdict on the connection. */
export class NoProofAwaitingResultError extends Error {
  constructor(threadId: string) {
    super(`no identity proof on thread '${threadId}' is waiting for a result on this connection`)
    this.name = 'NoProofAwaitingResultError'
  }
}

export const sendIdentityProofResult: MessageSender<'identity-proof-result'> = async (body, { agent, connection }) => {
  const record = await agent.dependencyManager
    .resolve(DidCommProofExchangeRepository)
    .findSingleByQuery(agent.context, { threadId: body.threadId, connectionId: connection.id })
  const flow = record && (await recordRepository(agent.context, PresentationFlowRecord).findById(agent.context, record.id))
  if (!record || flow?.origin !== 'message' || record.state !== DidCommProofState.PresentationReceived)
    throw new NoProofAwaitingResultError(body.threadId)
  const proofs = agent.modules.didcomm.proofs
  const rejected = body.proofItemResults.filter((item) => item.code === 'error')
  if (rejected.length === 0) {
    await proofs.acceptPresentation({ proofExchangeRecordId: record.id })
    return
  }
  const description = rejected.map((item) => `${item.id}: ${item.description ?? 'rejected'}`).join('; ')
  await proofs.sendProblemReport({ proofExchangeRecordId: record.id, description })
  await proofV2(agent).updateState(agent.context, record, DidCommProofState.Declined)
}

export const receiveIdentityProofSubmit: MessageReceiver = (agent, receive) => {
  agent.events.on<DidCommProofStateChangedEvent>(DidCommProofEventTypes.ProofStateChanged, ({ payload }) => {
    const record = payload.proofRecord
    void (async () => {
      if (!record.connectionId) return
      const flow = await recordRepository(agent.context, PresentationFlowRecord).findById(agent.context, record.id)
      if (flow?.origin !== 'message') return
      const outcome = await presentationOutcome(agent, record, flow.requestedCredentials)
      if (!outcome) return
      const submittedProofItems: SubmittedProofItem[] = flow.requestedCredentials.map((item) => {
        const base = { id: item.id, type: 'verifiable-credential' as const, proofExchangeId: record.id }
        return outcome.status === 'ok'
          ? {
              ...base,
              verified: true,
              claims: outcome.claims.get(item.id) ?? [],
              ...(item.predicates ? { predicates: outcome.predicates.get(item.id) ?? [] } : {}),
            }
          : { ...base, verified: false, errorCode: outcome.status, reason: outcome.reason }
      })
      receive({
        type: 'identity-proof-submit',
        id: randomUUID(),
        connectionId: record.connectionId,
        timestamp: Math.floor(Date.now() / 1000),
        threadId: record.threadId,
        submittedProofItems,
      })
    })().catch((error: unknown) =>
      agent.config.logger.warn('could not report an identity proof submission', { proofExchangeId: record.id, error }),
    )
  })
}
