/**
 * Connection invitations: Aries RFC 0434 out-of-band invitations with DID Exchange (RFC 0023)
 * as handshake, single-use or multi-use (one invitation, any number of connections: the
 * agent's public invitation is one of these, reused), encoded as `<AGENT_INVITATION_BASE_URL>?oob=<base64url>` so any wallet (which
 * reads the `oob` parameter) and any phone camera (which opens the page) can use the same URL.
 */
import {
  DidCommHandshakeProtocol,
  DidCommOutOfBandRepository,
  DidCommOutOfBandRole,
  DidCommOutOfBandState,
  type DidCommMessage,
} from '@credo-ts/didcomm'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from './agent.ts'

export interface ConnectionInvitation {
  /** The invitation URL, to show as a QR code or send as a link. */
  url: string
  /** Id of the out-of-band record; connections made from it carry it as `outOfBandId`. */
  outOfBandId: string
}

type InvitationConfig = Pick<AgentNodeConfig, 'label' | 'invitationImageUrl' | 'invitationBaseUrl'>

/**
 * How a connection invitation is made: `multiUse` lets every wallet that scans it connect (each
 * gets its own connection); `label` and `imageUrl` replace the agent's (AGENT_LABEL,
 * AGENT_INVITATION_IMAGE_URL) for this invitation.
 */
export interface ConnectionInvitationOptions {
  multiUse?: boolean
  label?: string
  imageUrl?: string
}

/** Creates a connection invitation (single-use unless `multiUse`), auto-accepting the DID Exchange requests it leads to. */
export async function createConnectionInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  options: ConnectionInvitationOptions = {},
): Promise<MessageInvitation> {
  return createInvitation(
    agent,
    { ...config, label: options.label ?? config.label, invitationImageUrl: options.imageUrl ?? config.invitationImageUrl },
    [],
    options.multiUse ?? false,
  )
}

/** Tag of the out-of-band record of the agent's public invitation. */
const PUBLIC_INVITATION_TAG = 'parleyPublicInvitation'

/** The public invitation being looked up or created, per agent, so concurrent requests share one. */
const publicInvitations = new WeakMap<DidcommAgent, Promise<ConnectionInvitation>>()

/**
 * The agent's public invitation: one multi-use invitation, created on first use and then reused
 * (across restarts too, while AGENT_LABEL and AGENT_INVITATION_IMAGE_URL stay the same), so
 * anonymous requests (`GET {public_url}/invitation`) store nothing and create no key.
 */
export function publicConnectionInvitation(agent: DidcommAgent, config: InvitationConfig): Promise<ConnectionInvitation> {
  let invitation = publicInvitations.get(agent)
  if (!invitation) {
    invitation = findOrCreatePublicInvitation(agent, config)
    publicInvitations.set(agent, invitation)
    invitation.catch(() => publicInvitations.delete(agent))
  }
  return invitation
}

async function findOrCreatePublicInvitation(agent: DidcommAgent, config: InvitationConfig): Promise<ConnectionInvitation> {
  const repository = agent.dependencyManager.resolve(DidCommOutOfBandRepository)
  const stored = await repository.findByQuery(agent.context, {
    [PUBLIC_INVITATION_TAG]: true,
    role: DidCommOutOfBandRole.Sender,
    state: DidCommOutOfBandState.AwaitResponse,
  })
  const current = stored.find(
    ({ outOfBandInvitation: invitation }) => invitation.label === config.label && invitation.imageUrl === config.invitationImageUrl,
  )
  if (current) return { url: current.outOfBandInvitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: current.id }
  const created = await createInvitation(agent, config, [], true)
  const record = await repository.getById(agent.context, created.outOfBandId)
  record.setTag(PUBLIC_INVITATION_TAG, true)
  await repository.update(agent.context, record)
  return { url: created.url, outOfBandId: created.outOfBandId }
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
  config: InvitationConfig,
  message: DidCommMessage,
): Promise<MessageInvitation> {
  return createInvitation(agent, config, [message], false)
}

/** A DID Exchange invitation carrying `messages`, auto-accepting the connection. */
async function createInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  messages: DidCommMessage[],
  multiUse: boolean,
): Promise<MessageInvitation> {
  const record = await agent.modules.didcomm.oob.createInvitation({
    label: config.label,
    imageUrl: config.invitationImageUrl,
    handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
    autoAcceptConnection: true,
    multiUseInvitation: multiUse,
    messages: messages.length > 0 ? messages : undefined,
  })
  const invitation = record.outOfBandInvitation
  return { url: invitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: record.id, invitation: invitation.toJSON() }
}
