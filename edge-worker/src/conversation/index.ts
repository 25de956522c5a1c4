/** The conversation Durable Object: state, memory and replies of one DIDComm connection. */
export { Conversation } from './Conversation.ts'
