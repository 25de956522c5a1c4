/**
 * `invitation` -> the out-of-band invitation message behind `url`, sent on the connection, so the
 * user's wallet handles it as if the user had scanned it. The invitation keeps its own `@id`
 * (the inviter recognises the answering connection request by it), so this type does not take
 * Parley's message id.
 */
import { DidCommMessageSender, DidCommOutboundMessageContext } from '@credo-ts/didcomm'
import type { MessageSender } from '../contract.ts'

export const sendInvitation: MessageSender<'invitation'> = async (body, context) => {
  const { agent, connection } = context
  const invitation = await agent.modules.didcomm.oob.parseInvitation(body.url)
  await agent.dependencyManager
    .resolve(DidCommMessageSender)
    .sendMessage(new DidCommOutboundMessageContext(invitation, { agentContext: agent.context, connection }))
}
