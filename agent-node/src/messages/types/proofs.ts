/**
 * Identity proofs (present-proof v2, AnonCreds format):
 * - `identity-proof-request` -> one proof request on the connection asking for every requested
 *   item (each restricted to its credential definition); the items are remembered with the
 *   exchange;
 * - when that exchange ends -> `identity-proof-submit` with one submitted item per requested
 *   item: `verified: true` and its revealed `claims`, or `verified: false` with `errorCode`
 *   (`refused`, `verification-error`) and `reason`.
 */
import { randomUUID } from 'node:crypto'
import { DidCommProofEventTypes, type DidCommProofStateChangedEvent } from '@credo-ts/didcomm'
import type { SubmittedProofItem } from '@parley/shared'
import { anonCredsProofRequest, presentationOutcome } from '../../proofs/outcome.ts'
import { PresentationFlowRecord } from '../../proofs/PresentationFlowRecord.ts'
import { recordRepository } from '../../wallet/storage/repository.ts'
import type { MessageReceiver, MessageSender } from '../contract.ts'
import { proofV2, sendExchangeMessage } from './protocol-messages.ts'

export const sendIdentityProofRequest: MessageSender<'identity-proof-request'> = async (body, context) => {
  const { agent } = context
  const requestedCredentials = body.requestedProofItems.map((item, index) => ({
    id: item.id ?? String(index),
    credentialDefinitionId: item.credentialDefinitionId,
    attributes: item.attributes,
  }))
  const { message, proofRecord } = await proofV2(agent).createRequest(agent.context, {
    connectionRecord: context.connection,
    proofFormats: { anoncreds: anonCredsProofRequest(requestedCredentials) },
  })
  await recordRepository(agent.context, PresentationFlowRecord).save(
    agent.context,
    new PresentationFlowRecord({ id: proofRecord.id, origin: 'message', requestedCredentials }),
  )
  await sendExchangeMessage(context, message, proofRecord.threadId, body.threadId)
}

export const receiveIdentityProofSubmit: MessageReceiver = (agent, receive) => {
  agent.events.on<DidCommProofStateChangedEvent>(DidCommProofEventTypes.ProofStateChanged, ({ payload }) => {
    const record = payload.proofRecord
    void (async () => {
      if (!record.connectionId) return
      const flow = await recordRepository(agent.context, PresentationFlowRecord).findById(agent.context, record.id)
      if (!flow || flow.origin !== 'message') return
      const outcome = await presentationOutcome(agent, record, flow.requestedCredentials)
      if (!outcome) return
      const submittedProofItems: SubmittedProofItem[] = flow.requestedCredentials.map((item) => {
        const base = { id: item.id, type: 'verifiable-credential' as const, proofExchangeId: record.id }
        return outcome.status === 'ok'
          ? { ...base, verified: true, claims: outcome.claims.get(item.id) ?? [] }
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
    })().catch((error: unknown) => agent.config.logger.warn('could not report an identity proof submission', { proofExchangeId: record.id, error }))
  })
}
