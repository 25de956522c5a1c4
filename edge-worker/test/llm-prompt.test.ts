import { resolveAgentPack } from '@parley/shared/agent-pack'
import { describe, expect, it } from 'vitest'
import { buildChatMessages, DEFAULT_SYSTEM_PROMPT, systemPromptFor, type Turn } from '../src/llm/index.ts'

const turns: Turn[] = [
  { role: 'user', content: 'u1' },
  { role: 'assistant', content: 'a1' },
  { role: 'user', content: 'u2' },
  { role: 'assistant', content: 'a2' },
  { role: 'user', content: 'u3' },
]

describe('buildChatMessages', () => {
  it('puts the system prompt first, then the last `window` turns oldest first', () => {
    expect(buildChatMessages('sys', turns, 3)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'u2' },
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'u3' },
    ])
  })

  it('keeps the whole history when it fits the window', () => {
    expect(buildChatMessages('sys', turns, 8)).toHaveLength(6)
  })

  it('sends only the system prompt with an empty history', () => {
    expect(buildChatMessages('sys', [], 8)).toEqual([{ role: 'system', content: 'sys' }])
  })
})

describe('systemPromptFor', () => {
  const config = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config

  it('prefers the language\'s systemPrompt', () => {
    expect(systemPromptFor(config('languages: { es: { systemPrompt: Hola } }\nllm: { agentPrompt: Persona }'), 'es')).toBe('Hola')
  })

  it('falls back to llm.agentPrompt, then to the default', () => {
    expect(systemPromptFor(config('languages: { es: { systemPrompt: Hola } }\nllm: { agentPrompt: Persona }'), 'en')).toBe('Persona')
    expect(systemPromptFor(config(''), 'en')).toBe(DEFAULT_SYSTEM_PROMPT)
  })
})
