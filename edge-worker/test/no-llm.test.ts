import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_TEXTS } from '../src/i18n/index.ts'
import { connectionState, profileMessage, TestAgent, textMessage } from './support/agent.ts'

describe('without a language model', () => {
  it('answers a text message saying that no model is configured', async () => {
    const agent = await TestAgent.connect({ worker: env.WITHOUT_LLM })
    const connectionId = crypto.randomUUID()
    const event = agent.sendEvent(textMessage(connectionId, 'is anyone there?'), 1)
    const command = await agent.command(connectionId, `${event.id}:0`)
    expect(command.command.message).toEqual({ connectionId, type: 'text', content: BUILT_IN_TEXTS.en!.LLM_NOT_CONFIGURED })
    await agent.close()
  })

  it("still greets, and says it in the language of the user's profile", async () => {
    const agent = await TestAgent.connect({ worker: env.WITHOUT_LLM })
    const connectionId = crypto.randomUUID()
    const completed = agent.sendEvent(connectionState(connectionId, 'completed'), 1)
    expect((await agent.command(connectionId, `${completed.id}:0`)).command.message).toMatchObject({ type: 'text' })
    agent.sendEvent(profileMessage(connectionId, { displayName: 'Ana', preferredLanguage: 'es-CO' }), 2)
    const text = agent.sendEvent(textMessage(connectionId, '¿hay alguien?'), 3)
    const command = await agent.command(connectionId, `${text.id}:0`)
    expect(command.command.message).toEqual({ connectionId, type: 'text', content: BUILT_IN_TEXTS.es!.LLM_NOT_CONFIGURED })
    await agent.close()
  })
})
