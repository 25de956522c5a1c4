/**
 * Typed builders of tunnel commands (shared/src/tunnel/frames.ts `TunnelCommand`). Flows build
 * commands with these; the conversation frames and sends them with idempotency keys.
 */
import { DidCommThreadId, TextMessageBody, type ContextualMenuUpdateMessageBody, type SendMessageBody } from '@parley/shared/messages'
import type { TunnelCommand } from '@parley/shared/tunnel'

/** `send-message` with any `POST /v1/message` body (text, media, menus, invitations, proof requests…). */
export function sendMessage(message: SendMessageBody): TunnelCommand {
  return { name: 'send-message', message }
}

/** Longest text a `send-message` command may carry (TextMessageBody). */
const MAX_TEXT_LENGTH = TextMessageBody.shape.content.maxLength ?? Number.POSITIVE_INFINITY

/**
 * `send-message` of a text (cut to the longest text a message may carry), in `threadId` when given
 * and a thread id agent-node can send in (`DidCommThreadId`): a peer's own thread id may be any
 * string, and a reply outside its thread beats no reply.
 */
export function sendText(connectionId: string, content: string, threadId?: string | null): TunnelCommand {
  const inThread = threadId && DidCommThreadId.safeParse(threadId).success ? { threadId } : {}
  return sendMessage({ connectionId, type: 'text', content: content.slice(0, MAX_TEXT_LENGTH), ...inThread })
}

/**
 * `send-message` of an `identity-proof-request` under message id `messageId` (a UUID the caller
 * keeps): agent-node makes it the proof exchange's thread, so the `identity-proof-submit` that
 * ends the exchange carries it as `threadId`. One item asking for `attributes` of a credential of
 * `credentialDefinitionId`.
 */
export function requestIdentityProof(
  connectionId: string,
  messageId: string,
  credentialDefinitionId: string,
  attributes: string[],
): TunnelCommand {
  return sendMessage({
    connectionId,
    id: messageId,
    type: 'identity-proof-request',
    requestedProofItems: [{ id: 'credential', type: 'verifiable-credential', credentialDefinitionId, attributes }],
  })
}

/** `send-message` of an `identity-proof-result` closing the exchange of thread `threadId`: `ok`, or `error` with `description` shown to the user. */
export function identityProofResult(
  connectionId: string,
  threadId: string,
  itemId: string,
  verdict: { ok: true } | { ok: false; description: string },
): TunnelCommand {
  return sendMessage({
    connectionId,
    threadId,
    type: 'identity-proof-result',
    proofItemResults: [
      { id: itemId, type: 'verifiable-credential', ...(verdict.ok ? { code: 'ok' } : { code: 'error', description: verdict.description }) },
    ],
  })
}

/** `send-message` of an `invitation` to the public DID `did` (a connection to another service). */
export function inviteToDid(connectionId: string, did: string): TunnelCommand {
  return sendMessage({ connectionId, type: 'invitation', did })
}

/** `send-message` of a `contextual-menu-update`: the connection's whole menu. */
export function contextualMenu(connectionId: string, menu: Omit<ContextualMenuUpdateMessageBody, 'connectionId' | 'type'>): TunnelCommand {
  return sendMessage({ connectionId, type: 'contextual-menu-update', ...menu })
}

/**
 * `send-message` of a `menu-display` (a question with buttons) under message id `messageId`: the
 * `menu-select` answering it carries that id as `threadId`. Item ids and texts must be unique.
 */
export function menuDisplay(connectionId: string, messageId: string, prompt: string, items: { id: string; text: string }[]): TunnelCommand {
  return sendMessage({ connectionId, id: messageId, type: 'menu-display', prompt, menuItems: items })
}

/** `redact-message`: agent-node overwrites its stored copies of received message `messageId` (it held a secret). */
export function redactMessage(connectionId: string, messageId: string): TunnelCommand {
  return { name: 'redact-message', connectionId, messageId }
}
