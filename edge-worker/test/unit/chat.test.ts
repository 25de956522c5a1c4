import { resolveAgentPack } from '@parley/shared/agent-pack'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { chatFlow } from '../../src/flows/chat/index.ts'
import { BUILT_IN_TEXTS } from '../../src/i18n/index.ts'
import type { ChatModel } from '../../src/llm/types.ts'
import type { Logger } from '../../src/logging/index.ts'
import { newSession } from '../../src/session/index.ts'
import type { Tool } from '../../src/tools/types.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const pack = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config
const text = (content: string) => ({
  type: 'message-received' as const,
  message: { type: 'text' as const, id: crypto.randomUUID(), connectionId: CONNECTION, timestamp: 0, threadId: 'thread-1', content },
})

function recordingLogger() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = []
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void entries.push({ level, message, fields })
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log }
  return { entries, log }
}

async function handle(yaml: string, model: ChatModel | undefined, tools: Tool[] = [], language?: string) {
  const sent: TunnelCommand[] = []
  const { entries, log } = recordingLogger()
  const result = await chatFlow.handle({
    event: text('hello'),
    eventId: 'e1',
    connectionId: CONNECTION,
    session: { ...newSession(), language },
    config: pack(yaml),
    now: 0,
    log,
    send: (command) => sent.push(command),
    chat: { model, tools, fetch, history: () => [] },
  })
  return { sent, entries, result }
}

describe('the chat flow', () => {
  it("says no model is configured, in the user's language, and records the exchange", async () => {
    const { sent, result } = await handle('', undefined, [], 'fr')
    expect(sent).toEqual([
      {
        name: 'send-message',
        message: { connectionId: CONNECTION, type: 'text', content: BUILT_IN_TEXTS.fr!.LLM_NOT_CONFIGURED, threadId: 'thread-1' },
      },
    ])
    expect(result.record).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: BUILT_IN_TEXTS.fr!.LLM_NOT_CONFIGURED },
    ])
  })

  it('logs the exchange when llm.verbose is set, with secrets masked', async () => {
    const model: ChatModel = {
      label: 'scripted',
      complete: async ({ messages }) =>
        messages.at(-1)!.role === 'tool'
          ? { text: 'done', toolCalls: [] }
          : { text: '', toolCalls: [{ id: 'c1', name: 'login', arguments: { user: 'ana', password: 'hunter2' } }] },
    }
    const login: Tool = {
      name: 'login',
      description: 'Logs in',
      parameters: { type: 'object' },
      policy: { requiresAuth: false },
      execute: async () => 'ok',
    }
    const { entries, sent } = await handle('llm: { verbose: true }', model, [login])
    expect(sent[0]).toMatchObject({ message: { content: 'done' } })
    const exchange = entries.find((entry) => entry.message === 'model exchange')
    expect(exchange?.fields).toMatchObject({
      model: 'scripted',
      user: 'hello',
      reply: 'done',
      steps: [{ call: { arguments: { user: 'ana', password: '***' } }, result: 'ok' }],
    })
    expect(JSON.stringify(entries)).not.toContain('hunter2')
    expect((await handle('', model, [login])).entries.find((entry) => entry.message === 'model exchange')).toBeUndefined()
  })
})
