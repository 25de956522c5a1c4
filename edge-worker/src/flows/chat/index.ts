/**
 * Flow `chat`: answers a user's text with one model turn (turn/), in the user's language, with
 * the tools this user may use. Without a model it says so (LLM_NOT_CONFIGURED); when the model
 * fails it apologises (LLM_UNAVAILABLE). The user's message, every tool call with its result and
 * the answer go to the conversation record. A tool call that waits for an approval is not run:
 * after the answer, the user is asked to confirm an approval request (flows/approvals).
 */
import { maskSecrets } from '@parley/shared/agent-pack'
import { sendText } from '../../commands/index.ts'
import { textFor } from '../../i18n/index.ts'
import { systemPromptFor } from '../../llm/prompt.ts'
import { errorMessage } from '../../logging/index.ts'
import { mcpConfigState } from '../../mcp/user-config.ts'
import { applyPatch, principalOf, type Session } from '../../session/index.ts'
import type { Tool } from '../../tools/types.ts'
import { askToConfirm } from '../approvals/index.ts'
import { adminIdentities } from '../authentication/roles.ts'
import { runTurn, type TurnResult } from '../../turn/index.ts'
import type { SessionPatch } from '../../session/index.ts'
import type { Flow, FlowEvent, FlowResult, RecordEntry } from '../types.ts'
import type { ChatServices } from './services.ts'

/** The text of a `message-received` text event, if `event` is one with content. */
function userText(event: FlowEvent): { content: string; threadId?: string | null } | undefined {
  if (event.type !== 'message-received' || event.message.type !== 'text' || !event.message.content) return undefined
  return { content: event.message.content, threadId: event.message.threadId }
}

/**
 * The tools of this turn: the registry's, then every MCP server's for this session (a server that
 * cannot list its tools contributes none; see mcp/clients.ts).
 */
async function toolsOfTurn(chat: ChatServices, session: Session): Promise<Tool[]> {
  if (!chat.mcp || chat.mcp.servers.length === 0) return [...chat.tools]
  const taken = new Set(chat.tools.map((tool) => tool.name))
  const saved = mcpConfigState(session.flowState).saved ?? {}
  return [...chat.tools, ...(await chat.mcp.toolsFor(saved, taken))]
}

export const chatFlow: Flow = {
  name: 'chat',
  claims: (event) => userText(event) !== undefined,
  async handle(context) {
    const { event, session, config, send, connectionId, log, chat } = context
    const { content, threadId } = userText(event)!
    const language = session.language ?? config.metadata.defaultLanguage
    const record: RecordEntry[] = [{ role: 'user', content }]
    const answer = (text: string): FlowResult => {
      send(sendText(connectionId, text, threadId))
      record.push({ role: 'assistant', content: text })
      return { record }
    }
    if (!chat.model) return answer(textFor(config, language, 'LLM_NOT_CONFIGURED'))

    const system = systemPromptFor(config, language)
    const history = chat.history()
    const tools = await toolsOfTurn(chat, session)
    let turn: TurnResult
    try {
      turn = await runTurn({
        model: chat.model,
        system,
        history,
        user: content,
        tools,
        principal: principalOf(session, adminIdentities(config.flows.authentication)),
        integrations: config.integrations,
        fetch: chat.fetch,
      })
    } catch (error) {
      log.error('model call failed', { model: chat.model.label, error: errorMessage(error) })
      return answer(textFor(config, language, 'LLM_UNAVAILABLE'))
    }
    if (config.llm.verbose) {
      log.info(
        'model exchange',
        maskSecrets({ model: chat.model.label, system, history, user: content, steps: turn.steps, reply: turn.text }) as Record<
          string,
          unknown
        >,
      )
    }
    for (const step of turn.steps) {
      record.push({
        role: 'tool',
        toolName: step.call.name,
        toolCallId: step.call.id,
        arguments: step.call.arguments,
        content: step.result,
        ok: step.ok,
      })
    }
    const text = turn.text || textFor(config, language, 'LLM_UNAVAILABLE')
    if (!turn.text) log.error('model returned no text', { model: chat.model.label, modelCalls: turn.modelCalls })
    const result = answer(text)
    let patch: SessionPatch | undefined
    for (const step of turn.steps) {
      const tool = step.approval && tools.find((candidate) => candidate.name === step.call.name)
      if (!tool || !step.approval) continue
      const asked = askToConfirm({ ...context, session: applyPatch(session, patch ?? {}) }, tool, step.call.arguments, step.approval)
      patch = { ...patch, ...asked, flowState: { ...patch?.flowState, ...asked.flowState } }
    }
    return patch ? { ...result, session: patch } : result
  },
}
