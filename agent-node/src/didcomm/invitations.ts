/**
 * Connection invitations: Aries RFC 0434 out-of-band invitations with DID Exchange (RFC 0023)
 * as handshake, encoded as `<AGENT_INVITATION_BASE_URL>?oob=<base64url>` so any wallet (which
 * reads the `oob` parameter) and any phone camera (which opens the page) can use the same URL.
 * Two forms:
 * - multi-use, naming the agent's public DID (`services: ["did:webvh:…"]`, as vs-agent's): any
 *   number of wallets connect through it, each resolving the DID to reach the agent, and their
 *   connections name the DID as `invitationDid`; the agent's public invitation is one of these,
 *   reused;
 * - single-use, with an inline service and a fresh did:key (one wallet; invitations carrying a
 *   message are always of this form).
 */
import {
  DidCommHandshakeProtocol,
  DidCommOutOfBandRepository,
  DidCommOutOfBandRole,
  DidCommOutOfBandState,
  type DidCommMessage,
} from '@credo-ts/didcomm'
import type { AgentNodeConfig } from '../config/index.ts'
import { type QrCodeOptions, renderQrCode } from '../public/qr-page.ts'
import type { DidcommAgent } from './agent.ts'

export interface ConnectionInvitation {
  /** The invitation URL, to show as a QR code or send as a link. */
  url: string
  /** Id of the out-of-band record; connections made from it carry it as `outOfBandId`. */
  outOfBandId: string
}

type InvitationConfig = Pick<AgentNodeConfig, 'label' | 'invitationImageUrl' | 'invitationBaseUrl'>

/**
 * How a connection invitation is made: `multiUse` (default true) makes the multi-use invitation
 * naming the public DID, every wallet that scans it connecting (each gets its own connection);
 * `multiUse: false` the single-use one with an inline did:key service. `label` and `imageUrl`
 * replace the agent's (AGENT_LABEL, AGENT_INVITATION_IMAGE_URL) for this invitation.
 */
export interface ConnectionInvitationOptions {
  multiUse?: boolean
  label?: string
  imageUrl?: string
}

/**
 * Creates a connection invitation (multi-use naming `publicDid` unless `multiUse` is false),
 * auto-accepting the DID Exchange requests it leads to.
 * @param publicDid the agent's public DID (resolved, SCID included), registered with Credo (`registerPublicDidWithCredo`)
 */
export async function createConnectionInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  publicDid: string,
  options: ConnectionInvitationOptions = {},
): Promise<MessageInvitation> {
  return createInvitation(
    agent,
    { ...config, label: options.label ?? config.label, invitationImageUrl: options.imageUrl ?? config.invitationImageUrl },
    [],
    options.multiUse === false ? undefined : publicDid,
  )
}

/**
 * Tag of the out-of-band records of the invitations naming a DID (the public DID): Credo records
 * the invitation's DID on the invitee's connection (`invitationDid`) but not on the inviter's, which
 * is found through its `outOfBandId` (`outOfBandIdsNamingDid`).
 */
const INVITATION_DID_TAG = 'invitationDid'

/** Ids of the out-of-band records of this agent's invitations naming `did` (their connections carry these as `outOfBandId`). */
export async function outOfBandIdsNamingDid(agent: DidcommAgent, did: string): Promise<string[]> {
  const records = await agent.dependencyManager
    .resolve(DidCommOutOfBandRepository)
    .findByQuery(agent.context, { [INVITATION_DID_TAG]: did, role: DidCommOutOfBandRole.Sender })
  return records.map((record) => record.id)
}

/** Tag of the out-of-band record of the agent's public invitation. */
const PUBLIC_INVITATION_TAG = 'parleyPublicInvitation'

/** The public invitation being looked up or created, per agent, so concurrent requests share one. */
const publicInvitations = new WeakMap<DidcommAgent, Promise<ConnectionInvitation>>()

/**
 * The agent's public invitation: one multi-use invitation naming `publicDid`, created on first use
 * and then reused (across restarts too, while AGENT_LABEL, AGENT_INVITATION_IMAGE_URL and the
 * public DID stay the same), so anonymous requests (`GET {public_url}/invitation`) store nothing
 * and create no key.
 */
export function publicConnectionInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  publicDid: string,
): Promise<ConnectionInvitation> {
  let invitation = publicInvitations.get(agent)
  if (!invitation) {
    invitation = findOrCreatePublicInvitation(agent, config, publicDid)
    publicInvitations.set(agent, invitation)
    invitation.catch(() => publicInvitations.delete(agent))
  }
  return invitation
}

async function findOrCreatePublicInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  publicDid: string,
): Promise<ConnectionInvitation> {
  const repository = agent.dependencyManager.resolve(DidCommOutOfBandRepository)
  const stored = await repository.findByQuery(agent.context, {
    [PUBLIC_INVITATION_TAG]: true,
    [INVITATION_DID_TAG]: publicDid,
    role: DidCommOutOfBandRole.Sender,
    state: DidCommOutOfBandState.AwaitResponse,
  })
  const current = stored.find(
    ({ outOfBandInvitation: invitation }) => invitation.label === config.label && invitation.imageUrl === config.invitationImageUrl,
  )
  if (current) return { url: current.outOfBandInvitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: current.id }
  const created = await createInvitation(agent, config, [], publicDid, { [PUBLIC_INVITATION_TAG]: true })
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
  return createInvitation(agent, config, [message])
}

/**
 * A DID Exchange invitation carrying `messages`, auto-accepting the connection: multi-use and
 * naming `invitationDid` when given (its out-of-band record tagged with it, and with `tags`),
 * otherwise single-use with an inline did:key service.
 */
async function createInvitation(
  agent: DidcommAgent,
  config: InvitationConfig,
  messages: DidCommMessage[],
  invitationDid?: string,
  tags: Record<string, boolean> = {},
): Promise<MessageInvitation> {
  const record = await agent.modules.didcomm.oob.createInvitation({
    label: config.label,
    imageUrl: config.invitationImageUrl,
    handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
    autoAcceptConnection: true,
    invitationDid,
    multiUseInvitation: invitationDid !== undefined,
    messages: messages.length > 0 ? messages : undefined,
  })
  if (invitationDid) {
    // Before the URL is handed out: no request can be updating the record yet.
    for (const [name, value] of Object.entries({ ...tags, [INVITATION_DID_TAG]: invitationDid })) record.setTag(name, value)
    await agent.dependencyManager.resolve(DidCommOutOfBandRepository).update(agent.context, record)
  }
  const invitation = record.outOfBandInvitation
  return { url: invitation.toUrl({ domain: config.invitationBaseUrl }), outOfBandId: record.id, invitation: invitation.toJSON() }
}

/** One agent's connection invitations, with its invitation settings and public DID, as one service. */
export class ConnectionInvitations {
  constructor(
    private readonly agent: DidcommAgent,
    private readonly config: InvitationConfig,
    private readonly publicDid: string,
  ) {}

  /** A new connection invitation (see `createConnectionInvitation`). */
  async create(options: ConnectionInvitationOptions = {}): Promise<ConnectionInvitation> {
    const { url, outOfBandId } = await createConnectionInvitation(this.agent, this.config, this.publicDid, options)
    return { url, outOfBandId }
  }

  /**
   * A PNG QR code of the agent's public invitation (`publicConnectionInvitation`: reused, so this creates nothing).
   * @throws InvitationTooLongError when the URL does not fit in a QR code.
   */
  async publicQrCode(options: QrCodeOptions): Promise<Buffer> {
    const { url } = await publicConnectionInvitation(this.agent, this.config, this.publicDid)
    return renderQrCode(url, 'png', options)
  }
}
