/** The conversation Durable Object: state, memory and replies of one DIDComm connection. */
import type { Env } from '../env.ts'
import type { Conversation } from './Conversation.ts'

export { Conversation } from './Conversation.ts'

/** The Conversation object of DIDComm connection `connectionId`. */
export function conversationFor(env: Env, connectionId: string): DurableObjectStub<Conversation> {
  return env.CONVERSATION.get(env.CONVERSATION.idFromName(connectionId))
}
