/**
 * Typed builders of tunnel commands (shared/src/tunnel/frames.ts `TunnelCommand`). Flows build
 * commands with these; the conversation frames and sends them with idempotency keys.
 */
import { TextMessageBody, type SendMessageBody } from '@parley/shared/messages'
import type { TunnelCommand } from '@parley/shared/tunnel'

/** `send-message` with any `POST /v1/message` body (text, media, menus, invitations, proof requests…). */
export function sendMessage(message: SendMessageBody): TunnelCommand {
  return { name: 'send-message', message }
}

/** Longest text a `send-message` command may carry (TextMessageBody). */
const MAX_TEXT_LENGTH = TextMessageBody.shape.content.maxLength ?? Number.POSITIVE_INFINITY

/** `send-message` of a text (cut to the longest text a message may carry), in `threadId` when given. */
export function sendText(connectionId: string, content: string, threadId?: string | null): TunnelCommand {
  return sendMessage({ connectionId, type: 'text', content: content.slice(0, MAX_TEXT_LENGTH), ...(threadId ? { threadId } : {}) })
}
