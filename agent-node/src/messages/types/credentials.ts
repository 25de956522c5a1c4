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
  DidCommCredentialRole,
  DidCommCredentialState,
  type DidCommCredentialStateChangedEvent,
} from '@credo-ts/didcomm'
import type { CredentialReceptionState } from '@parley/shared'
import type { MessageReceiver, MessageSender } from '../contract.ts'
import { credentialV2, sendExchangeMessage } from './protocol-messages.ts'

export const sendCredentialIssuance: MessageSender<'credential-issuance'> = async (body, context) => {
  const { message, credentialExchangeRecord } = await credentialV2(context.agent).createOffer(context.agent.context, {
    connectionRecord: context.connection,
    credentialFormats: { anoncreds: { credentialDefinitionId: body.credentialDefinitionId, attributes: body.claims } },
  })
  await sendExchangeMessage(context, message, credentialExchangeRecord.threadId, body.threadId)
}

export const sendCredentialRequest: MessageSender<'credential-request'> = async (body, context) => {
  const { message, credentialExchangeRecord } = await credentialV2(context.agent).createProposal(context.agent.context, {
    connectionRecord: context.connection,
    credentialFormats: { anoncreds: { credentialDefinitionId: body.credentialDefinitionId, attributes: body.claims } },
  })
  await sendExchangeMessage(context, message, credentialExchangeRecord.threadId, body.threadId)
}

/** The reception state an issuer-side transition reports, if any. */
function receptionState(state: DidCommCredentialState, previousState: DidCommCredentialState | null): CredentialReceptionState | undefined {
  if (state === DidCommCredentialState.Done) return 'done'
  if (state !== DidCommCredentialState.Abandoned) return undefined
  return previousState === DidCommCredentialState.OfferSent ? 'declined' : 'abandoned'
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
