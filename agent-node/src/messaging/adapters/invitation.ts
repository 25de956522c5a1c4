/**
 * `invitation` -> an out-of-band invitation message sent on the connection, so the user's wallet
 * handles it as if the user had scanned it:
 * - with `url`: the invitation behind it;
 * - with `did`: an invitation naming that public DID as its service (the DID's own DIDComm
 *   service receives the connection request), threaded to the DID as vs-agent does;
 * - otherwise: a new single-use invitation of this agent with `label` and `imageUrl` (vs-agent's
 *   sub-connection).
 * An invitation the agent made or forwarded keeps its own `@id` (the inviter recognises the
 * answering connection request by it), so those forms do not take Parley's message id.
 */
import { DidCommHandshakeProtocol, DidCommOutOfBandInvitation } from '@credo-ts/didcomm'
import { sendOnConnection } from '../../didcomm/sendOnConnection.ts'
import type { MessageSender } from '../contract.ts'

export const sendInvitation: MessageSender<'invitation'> = async (body, context) => {
  const { agent, connection } = context
  if (body.did) {
    const invitation = new DidCommOutOfBandInvitation({
      label: body.label ?? '',
      imageUrl: body.imageUrl,
      services: [body.did],
      handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
    })
    invitation.setThread({ parentThreadId: body.did })
    await context.sendDidComm(invitation)
    return
  }
  const invitation = body.url
    ? await agent.modules.didcomm.oob.parseInvitation(body.url)
    : (
        await agent.modules.didcomm.oob.createInvitation({
          label: body.label,
          imageUrl: body.imageUrl,
          handshakeProtocols: [DidCommHandshakeProtocol.DidExchange],
          autoAcceptConnection: true,
        })
      ).outOfBandInvitation
  await sendOnConnection(agent.context, connection, invitation) // keeps its own @id (see above)
}
