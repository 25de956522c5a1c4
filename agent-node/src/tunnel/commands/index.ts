/**
 * Commands the edge sends down the tunnel, as a registry (`name -> handler`), the way
 * `messages/registry.ts` maps message types to senders: a new command is one new entry in
 * `shared/src/tunnel/frames.ts` (`TunnelCommand`) and one here. A command arrives already
 * validated by the frame schema, which reuses the admin API's schemas (`send-message` carries a
 * `POST /v1/message` body of any type: text, media, menus, invitations, identity-proof requests…).
 */
import { type CommandResult, commandConnectionId, type TunnelCommand, type TunnelCommandName } from '@parley/shared'
import type { MessageService } from '../../messages/MessageService.ts'

/** What a command handler may use, and the frame's idempotency key. */
export interface CommandContext {
  messages: MessageService
  /** The frame's idempotency key: a handler with effects claims it, so a repeated frame acts once. */
  idempotencyKey: string
  /**
   * Overwrites the stored copies of a received message (`messages/redaction.ts`); absent where
   * the agent keeps no store (tests, benches), then `redact-message` fails.
   * @returns how many stored copies were overwritten.
   */
  redactMessage?: (connectionId: string, messageId: string) => Promise<number>
}

/** Runs one command. @throws when it cannot be done (the edge gets `ok: false` and the message). */
export type CommandHandler<N extends TunnelCommandName> = (
  command: Extract<TunnelCommand, { name: N }>,
  context: CommandContext,
) => Promise<CommandResult>

export const commandHandlers: { [N in TunnelCommandName]: CommandHandler<N> } = {
  /** `send-message`: `MessageService.send`, the same path as `POST /v1/message`, keyed in scope `tunnel`. */
  'send-message': async ({ message }, { messages, idempotencyKey }) => {
    const { id } = await messages.send(message, { scope: 'tunnel', key: idempotencyKey })
    return { id }
  },
  /** `redact-message`: the message's stored text and its `message-received` event become the redaction marker. */
  'redact-message': async ({ connectionId, messageId }, { redactMessage }) => {
    if (!redactMessage) throw new Error('redact-message: this agent keeps no message store to redact')
    return { redacted: await redactMessage(connectionId, messageId) }
  },
}

/**
 * The key commands are ordered by: a connection's commands run in the order the edge sent them
 * (a greeting before the prompt that follows it), other connections' alongside.
 */
export function commandOrderKey(command: TunnelCommand): string {
  return `connection:${commandConnectionId(command)}`
}

/** Runs `command` with the handler registered for its name. */
export function runCommand(command: TunnelCommand, context: CommandContext): Promise<CommandResult> {
  const handler = commandHandlers[command.name] as CommandHandler<typeof command.name>
  return handler(command, context)
}
