/** `terminate-connection` in both directions: DID Rotate 1.0 `hangup` (see `didcomm/hangup.ts`). */
import { DidCommDidRotateService } from '@credo-ts/didcomm'
import { onHangup } from '../../didcomm/hangup.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

/**
 * `terminate-connection` -> hangup. Credo drops our DID from the record first, so the hang-up
 * leaves on the record as it was before (as `DidCommConnectionsApi.hangup` does), with Parley's
 * message id; the connection is terminated even if the peer cannot be reached.
 */
export const sendTerminateConnection: MessageSender<'terminate-connection'> = async (body, context) => {
  const rotate = context.agent.dependencyManager.resolve(DidCommDidRotateService)
  const hangup = await rotate.createHangup(context.agent.context, { connection: context.connection.clone() })
  if (body.threadId) hangup.setThread({ parentThreadId: body.threadId })
  await context.sendDidComm(hangup)
}

/** Hang-ups from the peer -> `terminate-connection` envelopes. */
export const receiveTerminateConnection: MessageReceiver = (agent, receive) => {
  onHangup(agent, ({ by, message, connection, at }) => {
    if (by !== 'peer') return
    receive({
      type: 'terminate-connection',
      id: message.id,
      connectionId: connection.id,
      timestamp: Math.floor(at.getTime() / 1000),
      threadId: envelopeThreadId(message),
    })
  })
}
