/**
 * The handler every Parley protocol module registers: thin, it hands the inbound message to its
 * service and returns the service's answer (if any) for Credo to send back.
 */
import type { DidCommInboundMessageContext, DidCommMessage, DidCommMessageHandler, DidCommOutboundMessageContext } from '@credo-ts/didcomm'

/** A message class Credo can instantiate from JSON. */
type MessageClass<M extends DidCommMessage> = { readonly type: { messageTypeUri: string } } & (new (...args: never[]) => M)

/**
 * A handler for the messages of `messages`, each passed to `process` (which may answer with an
 * outbound message). A throw becomes Credo's problem report to the sender.
 */
export function messageHandler<M extends DidCommMessage>(
  messages: readonly MessageClass<M>[],
  process: (messageContext: DidCommInboundMessageContext<M>) => DidCommOutboundMessageContext | undefined,
): DidCommMessageHandler {
  return {
    supportedMessages: messages as unknown as DidCommMessageHandler['supportedMessages'],
    async handle(messageContext) {
      return process(messageContext as DidCommInboundMessageContext<M>)
    },
  }
}
