/**
 * Commands the edge sends down the tunnel, as a registry (`name -> handler`), the way
 * `messaging/registry.ts` maps message types to senders: a new command is one new entry in
 * `shared/src/tunnel/frames.ts` (`TunnelCommand`) and one here. A command arrives already
 * validated by the frame schema, which reuses the admin API's schemas (`send-message` carries a
 * `POST /v1/message` body of any type: text, media, menus, invitations, identity-proof requests…).
 */
import { type CommandResult, commandConnectionId, type TunnelCommand, type TunnelCommandName } from '@parley/shared'
import { UnknownMcpServerError, type McpStdioSupervisor } from '../../mcp/index.ts'
import type { MessageService } from '../../messaging/MessageService.ts'

/** What a command handler may use, and the frame's idempotency key. */
export interface CommandContext {
  messages: MessageService
  /** The frame's idempotency key: a handler with effects claims it, so a repeated frame acts once. */
  idempotencyKey: string
  /** The frame's id (`mcp-stdio` responses name it in `replyTo`). */
  commandId: string
  /** The stdio MCP servers of agent-node's own pack; none configured when absent. */
  mcp?: McpStdioSupervisor
  /**
   * Overwrites the stored copies of a received message (`messaging/redaction.ts`); absent where
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
  /**
   * `mcp-stdio`: writes the JSON-RPC message to the named stdio server of agent-node's own pack
   * (the response comes up as an `mcp-stdio-message` frame). An unconfigured name is refused.
   */
  'mcp-stdio': async ({ server, message }, { mcp, commandId }) => {
    if (!mcp) throw new UnknownMcpServerError(server)
    return mcp.relay(server, message, commandId)
  },
  /** `redact-message`: the message's stored text and its `message-received` event become the redaction marker. */
  'redact-message': async ({ connectionId, messageId }, { redactMessage }) => {
    if (!redactMessage) throw new Error('redact-message: this agent keeps no message store to redact')
    return { redacted: await redactMessage(connectionId, messageId) }
  },
}

/**
 * The key commands are ordered by: a connection's commands run in the order the edge sent them
 * (a greeting before the prompt that follows it), other connections' alongside. One stdio MCP
 * server's messages are written in the order they came; writing is quick (the handler does not
 * wait for the answer), so a long tool call holds up neither chats nor that server's next message.
 */
export function commandOrderKey(command: TunnelCommand): string {
  return command.name === 'mcp-stdio' ? `mcp-stdio:${command.server}` : `connection:${commandConnectionId(command)}`
}

/** Runs `command` with the handler registered for its name. */
export function runCommand(command: TunnelCommand, context: CommandContext): Promise<CommandResult> {
  const handler = commandHandlers[command.name] as CommandHandler<typeof command.name>
  return handler(command, context)
}
