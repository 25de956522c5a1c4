import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { DEFAULT_TEXTS } from '../src/conversation/texts.ts'
import { TestAgent, textMessage } from './support/agent.ts'

describe('without a language model', () => {
  it('answers a text message saying that no model is configured', async () => {
    const agent = await TestAgent.connect({ worker: env.WITHOUT_LLM })
    const connectionId = crypto.randomUUID()
    const event = agent.sendEvent(textMessage(connectionId, 'is anyone there?'), 1)
    const command = await agent.command(connectionId, `reply:${event.id}`)
    expect(command.command.message).toEqual({ connectionId, type: 'text', content: DEFAULT_TEXTS.LLM_NOT_CONFIGURED })
    await agent.close()
  })
})
