/**
 * Connection invitations: Aries RFC 0434 out-of-band invitations with DID Exchange (RFC 0023)
 * as handshake, encoded as `<AGENT_INVITATION_BASE_URL>?oob=<base64url>` so any wallet (which
 * reads the `oob` parameter) and any phone camera (which opens the page) can use the same URL.
 */
import { DidCommHandshakeProtocol } from '@credo-ts/didcomm'
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
  const record = await agent.modules.didcomm.oob.createInvitation({
    label: config.label,
    imageUrl: config.invitationImageUrl,
    handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
    autoAcceptConnection: true,
  })
  return { url: record.outOfBandInvitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: record.id }
}
