/**
 * Credential messages (issue-credential v2, AnonCreds format):
 * - `credential-issuance` -> an offer of `credentialDefinitionId` with `claims` on the connection;
 *   Credo issues when the user's request answers it (auto-accept "content approved");
 * - `credential-request` -> a proposal asking the peer, an issuer, for such a credential;
 * - issuer-side exchanges that end -> `credential-reception`: `done` when the user stored the
 *   credential (ack received), `declined` when the user answered the offer with a problem report,
 *   `abandoned` when the exchange failed later. Exchanges without a connection (an offer
 *   invitation nobody accepted) report nothing.
 */
import { randomUUID } from 'node:crypto'
import {
  DidCommCredentialEventTypes,
  DidCommCredentialExchangeRepository,
  DidCommCredentialRole,
  DidCommCredentialState,
  type DidCommCredentialExchangeRecord,
  type DidCommCredentialStateChangedEvent,
} from '@credo-ts/didcomm'
import type { CredentialReceptionState } from '@parley/shared'
import type { MessageReceiver, MessageSender } from '../contract.ts'
import { credentialExchangeView } from '../../credentials/exchanges.ts'
import type { DidcommAgent } from '../../didcomm/agent.ts'
import { credentialV2, sendExchangeMessage, type ExchangeThread } from './protocol-messages.ts'

/** `record` stored through the credential exchange repository (for `sendExchangeMessage`). */
function credentialExchange(agent: DidcommAgent, record: DidCommCredentialExchangeRecord): ExchangeThread {
  return { record, save: () => agent.dependencyManager.resolve(DidCommCredentialExchangeRepository).update(agent.context, record) }
}

/**
 * With a `threadId` naming the user's pending proposal (`credential-request` received on this
 * connection), the offer answers that proposal on its thread; otherwise it starts a new exchange.
 */
export const sendCredentialIssuance: MessageSender<'credential-issuance'> = async (body, context) => {
  const { agent, connection } = context
  const credentialFormats = { anoncreds: { credentialDefinitionId: body.credentialDefinitionId, attributes: body.claims } }
  const proposal = body.threadId
    ? await agent.dependencyManager.resolve(DidCommCredentialExchangeRepository).findSingleByQuery(agent.context, {
        threadId: body.threadId,
        connectionId: connection.id,
        role: DidCommCredentialRole.Issuer,
        state: DidCommCredentialState.ProposalReceived,
      })
    : null
  if (proposal) {
    const { message } = await credentialV2(agent).acceptProposal(agent.context, { credentialExchangeRecord: proposal, credentialFormats })
    await context.sendDidComm(message)
    return
  }
  const { message, credentialExchangeRecord } = await credentialV2(agent).createOffer(agent.context, {
    connectionRecord: connection,
    credentialFormats,
  })
  await sendExchangeMessage(context, message, credentialExchange(agent, credentialExchangeRecord), body.threadId)
}

export const sendCredentialRequest: MessageSender<'credential-request'> = async (body, context) => {
  const { message, credentialExchangeRecord } = await credentialV2(context.agent).createProposal(context.agent.context, {
    connectionRecord: context.connection,
    credentialFormats: { anoncreds: { credentialDefinitionId: body.credentialDefinitionId, attributes: body.claims } },
  })
  await sendExchangeMessage(context, message, credentialExchange(context.agent, credentialExchangeRecord), body.threadId)
}

/** The reception state an issuer-side transition reports, if any. */
function receptionState(state: DidCommCredentialState, previousState: DidCommCredentialState | null): CredentialReceptionState | undefined {
  if (state === DidCommCredentialState.Done) return 'done'
  if (state !== DidCommCredentialState.Abandoned) return undefined
  return previousState === DidCommCredentialState.OfferSent ? 'declined' : 'abandoned'
}

/**
 * A proposal from the user (issue-credential v2 `propose-credential`) -> `credential-request`
 * with the proposed definition and claims; `threadId` is the exchange's thread, which a
 * `credential-issuance` names to answer it.
 */
export const receiveCredentialProposal: MessageReceiver = (agent, receive) => {
  agent.events.on<DidCommCredentialStateChangedEvent>(DidCommCredentialEventTypes.DidCommCredentialStateChanged, ({ payload }) => {
    const record = payload.credentialExchangeRecord
    if (record.role !== DidCommCredentialRole.Issuer || record.state !== DidCommCredentialState.ProposalReceived || !record.connectionId)
      return
    const connectionId = record.connectionId
    void credentialExchangeView(agent, record)
      .then(({ credentialDefinitionId, claims }) => {
        receive({
          type: 'credential-request',
          id: randomUUID(),
          connectionId,
          timestamp: Math.floor(Date.now() / 1000),
          threadId: record.threadId,
          credentialDefinitionId,
          claims,
        })
      })
      .catch((error: unknown) =>
        agent.config.logger.warn('could not report a credential proposal', { credentialExchangeId: record.id, error }),
      )
  })
}

export const receiveCredentialReception: MessageReceiver = (agent, receive) => {
  agent.events.on<DidCommCredentialStateChangedEvent>(DidCommCredentialEventTypes.DidCommCredentialStateChanged, ({ payload }) => {
    const record = payload.credentialExchangeRecord
    if (record.role !== DidCommCredentialRole.Issuer || !record.connectionId) return
    const state = receptionState(record.state, payload.previousState)
    if (!state) return
    receive({
      type: 'credential-reception',
      id: randomUUID(),
      connectionId: record.connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: record.threadId,
      state,
      credentialExchangeId: record.id,
    })
  })
}
