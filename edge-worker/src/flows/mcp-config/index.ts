/**
 * Flow `mcp-config` (manifest spec "mcp", `accessMode: user-controlled`, and "Authentication" rule
 * 7): the user configures the user-controlled MCP servers in chat.
 *
 * - Action `mcp-config` (menu): queues every user-controlled server, in pack order, and asks for
 *   the first field of the first (MCP_CONFIG_FIELD with the field's `label` in the user's
 *   language). Each text the user sends next is the current field's value; when a server's fields
 *   are all given, the configuration is tested against the server (initialize and `tools/list`)
 *   and saved only if that works (MCP_CONFIG_SAVED, else MCP_CONFIG_INVALID), then the next
 *   server's fields are asked for. The menu's `configuring` holds meanwhile.
 * - Action `abort-config`: drops what is being asked for (MCP_CONFIG_ABORTED); saved
 *   configurations stay.
 * - A `secret` value is sealed with MCP_SECRETS_KEY before it is kept (mcp/secrets.ts); without
 *   the key a server asking for one gets MCP_CONFIG_UNAVAILABLE. The message that carried it is
 *   redacted where it was stored: in the conversation's event row (`FlowResult.redact`) and in
 *   agent-node (tunnel command `redact-message`). Values never reach the conversation record, the
 *   memory window or a log line.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { redactMessage, sendText } from '../../commands/index.ts'
import { textFor, type TextKey } from '../../i18n/index.ts'
import { errorMessage } from '../../logging/index.ts'
import type { McpServerConfig } from '../../mcp/types.ts'
import {
  asksForSecrets,
  MCP_CONFIG_STATE,
  type McpConfigState,
  mcpConfigState,
  openValues,
  type StoredValue,
  userControlled,
  userHeaders,
} from '../../mcp/user-config.ts'
import type { Session, SessionPatch } from '../../session/index.ts'
import { promptsToAuthenticate } from '../authentication/index.ts'
import type { Flow, FlowContext, FlowEvent, FlowResult } from '../types.ts'

/** The flow's name (`session.activeFlow` while configuring). */
const FLOW = 'mcp-config'

type Field = NonNullable<McpServerConfig['userConfig']>['fields'][number]

const languageOf = (session: Session, config: AgentPackConfig) => session.language ?? config.metadata.defaultLanguage

/** Text `key` in the user's language with `{server}` and `{label}` filled. */
function say(context: FlowContext, key: TextKey, server = '', label = ''): void {
  const text = textFor(context.config, languageOf(context.session, context.config), key)
  context.send(sendText(context.connectionId, text.replaceAll('{server}', server).replaceAll('{label}', label)))
}

/** The label of `field` in `language`: its text, its entry for the language or the pack's default language, else its name. */
export function fieldLabel(field: Field, language: string, defaultLanguage: string): string {
  if (typeof field.label === 'string') return field.label
  const labels = field.label ?? {}
  return labels[language] ?? labels[defaultLanguage] ?? Object.values(labels)[0] ?? field.name
}

/** Whether the session is configuring (the menu's `visibleWhen: configuring`). */
export function isConfiguring(session: Session): boolean {
  return mcpConfigState(session.flowState).pending !== undefined
}

/** The text message of `event`, if it is one. */
function textMessage(event: FlowEvent): { id: string; content: string } | undefined {
  if (event.type !== 'message-received' || event.message.type !== 'text') return undefined
  return { id: event.message.id, content: event.message.content ?? '' }
}

/** The session patch that stores `state` (and holds the conversation while something is pending). */
function patchFor(state: McpConfigState): SessionPatch {
  return { activeFlow: state.pending ? FLOW : undefined, flowState: { [MCP_CONFIG_STATE]: state } }
}

/** `text` with every entered value masked, for a log line. */
function masked(text: string, values: Readonly<Record<string, string>>): string {
  return Object.values(values)
    .filter((value) => value.length > 0)
    .reduce((result, value) => result.replaceAll(value, '***'), text)
}

/**
 * Asks for the next field of the current server; a server whose fields are all given is tested
 * and saved (or not) and the next one starts. Returns the state after that.
 */
async function advance(context: FlowContext, state: McpConfigState): Promise<McpConfigState> {
  const { config, session, chat, log } = context
  let { saved = {}, pending } = state
  while (pending && pending.servers.length > 0) {
    const server = config.mcp.servers.find((candidate) => candidate.name === pending!.servers[0])
    const fields = server?.userConfig?.fields ?? []
    if (server && pending.field < fields.length) {
      const language = languageOf(session, config)
      say(context, 'MCP_CONFIG_FIELD', server.name, fieldLabel(fields[pending.field]!, language, config.metadata.defaultLanguage))
      return { saved, pending }
    }
    if (server) {
      const plain = await openValues(pending.values, chat.mcp?.secrets)
      try {
        if (!chat.mcp) throw new Error('no MCP clients in this Worker')
        await chat.mcp.probe(server, userHeaders(server, plain))
        saved = { ...saved, [server.name]: pending.values }
        say(context, 'MCP_CONFIG_SAVED', server.name)
      } catch (error) {
        log.info('MCP configuration refused', { server: server.name, error: masked(errorMessage(error), plain) })
        say(context, 'MCP_CONFIG_INVALID', server.name)
      }
    }
    const rest = pending.servers.slice(1)
    pending = rest.length > 0 ? { servers: rest, field: 0, values: {} } : undefined
  }
  return { saved }
}

export const mcpConfigFlow: Flow = {
  name: FLOW,
  claims: (event, session) => isConfiguring(session) && textMessage(event) !== undefined,
  async handle(context) {
    const { event, session, config, chat, connectionId, send } = context
    const message = textMessage(event)!
    const state = mcpConfigState(session.flowState)
    const pending = state.pending!
    const server = config.mcp.servers.find((candidate) => candidate.name === pending.servers[0])
    const field = server?.userConfig?.fields[pending.field]
    if (!field) return { session: patchFor(await advance(context, state)) }
    const value = message.content.trim()
    let stored: StoredValue
    let redact = false
    if (field.type === 'secret') {
      // The message held a secret: redact it wherever it was stored, whatever happens next.
      send(redactMessage(connectionId, message.id))
      redact = true
      if (!chat.mcp?.secrets) {
        say(context, 'MCP_CONFIG_UNAVAILABLE', server!.name)
        return { session: patchFor({ saved: state.saved }), redact }
      }
      stored = { sealed: await chat.mcp.secrets.seal(value) }
    } else {
      stored = { text: value }
    }
    if (value === '') return { session: patchFor(await advance(context, state)), redact }
    const next = { ...pending, field: pending.field + 1, values: { ...pending.values, [field.name]: stored } }
    return { session: patchFor(await advance(context, { saved: state.saved, pending: next })), redact }
  },
}

/**
 * Action `mcp-config`: starts configuring every user-controlled server (see the module comment);
 * a guest who must authenticate first (`authentication.required`) is told so instead.
 */
export async function startConfig(context: FlowContext): Promise<FlowResult> {
  const { config, session, chat } = context
  // A guest's texts go to the AUTH_REQUIRED gate first: a value (a secret) typed now would be
  // kept unredacted and never reach this flow.
  if (promptsToAuthenticate(session, config)) {
    say(context, 'AUTH_REQUIRED')
    return {}
  }
  const servers = userControlled(config.mcp.servers).filter((server) => {
    if (!asksForSecrets(server) || chat.mcp?.secrets) return true
    say(context, 'MCP_CONFIG_UNAVAILABLE', server.name)
    return false
  })
  const state = mcpConfigState(session.flowState)
  if (userControlled(config.mcp.servers).length === 0) {
    say(context, 'MCP_CONFIG_NONE')
    return {}
  }
  if (servers.length === 0) return {}
  const pending = { servers: servers.map((server) => server.name), field: 0, values: {} }
  return { session: patchFor(await advance(context, { saved: state.saved, pending })) }
}

/** Action `abort-config`: drops the configuration being asked for. */
export async function abortConfig(context: FlowContext): Promise<FlowResult> {
  say(context, 'MCP_CONFIG_ABORTED')
  return { session: patchFor({ saved: mcpConfigState(context.session.flowState).saved }) }
}
