/**
 * Connection invitations: Aries RFC 0434 out-of-band invitations with DID Exchange (RFC 0023)
 * as handshake, encoded as `<AGENT_INVITATION_BASE_URL>?oob=<base64url>` so any wallet (which
 * reads the `oob` parameter) and any phone camera (which opens the page) can use the same URL.
 */
import { DidCommHandshakeProtocol, type DidCommMessage } from '@credo-ts/didcomm'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from './agent.ts'

export interface ConnectionInvitation {
  /** The invitation URL, to show as a QR code or send as a link. */
  url: string
  /** Id of the out-of-band record; connections made from it carry it as `outOfBandId`. */
  outOfBandId: string
}

/** Creates a single-use connection invitation, auto-accepting the DID Exchange request it leads to. */
export async function createConnectionInvitation(
  agent: DidcommAgent,
  config: Pick<AgentNodeConfig, 'label' | 'invitationImageUrl' | 'invitationBaseUrl'>,
): Promise<ConnectionInvitation> {
  const { url, outOfBandId } = await createInvitation(agent, config, [])
  return { url, outOfBandId }
}

/** An invitation carrying a protocol message: its URL, its JSON and its out-of-band record. */
export interface MessageInvitation extends ConnectionInvitation {
  invitation: Record<string, unknown>
}

/**
 * Creates a single-use invitation that carries `message` (a credential offer, a proof request) in
 * `requests~attach`, with DID Exchange as handshake: a wallet with no connection connects first,
 * then handles the message on the new connection (RFC 0434).
 */
export function createMessageInvitation(
  agent: DidcommAgent,
  config: Pick<AgentNodeConfig, 'label' | 'invitationImageUrl' | 'invitationBaseUrl'>,
  message: DidCommMessage,
): Promise<MessageInvitation> {
  return createInvitation(agent, config, [message])
}

/** A single-use DID Exchange invitation carrying `messages`, auto-accepting the connection. */
async function createInvitation(
  agent: DidcommAgent,
  config: Pick<AgentNodeConfig, 'label' | 'invitationImageUrl' | 'invitationBaseUrl'>,
  messages: DidCommMessage[],
): Promise<MessageInvitation> {
  const record = await agent.modules.didcomm.oob.createInvitation({
    label: config.label,
    imageUrl: config.invitationImageUrl,
    handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
    autoAcceptConnection: true,
    messages: messages.length > 0 ? messages : undefined,
  })
  const invitation = record.outOfBandInvitation
  return { url: invitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: record.id, invitation: invitation.toJSON() }
}
