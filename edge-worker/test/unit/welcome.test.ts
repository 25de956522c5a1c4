import { resolveAgentPack, type AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import { describe, expect, it } from 'vitest'
import { handleEvent } from '../../src/flows/step.ts'
import type { FlowEvent } from '../../src/flows/types.ts'
import { PROFILE_WAIT_MS } from '../../src/flows/welcome/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { newSession, type Session } from '../../src/session/index.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const pack = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config
const completed: AgentEvent = {
  type: 'connection-state-updated',
  connectionId: CONNECTION,
  invitationId: crypto.randomUUID(),
  state: 'completed',
}
const profile = (fields: { displayName?: string; preferredLanguage?: string }): AgentEvent => ({
  type: 'message-received',
  message: { type: 'profile', id: crypto.randomUUID(), connectionId: CONNECTION, timestamp: 0, threadId: null, ...fields },
})

/** Feeds `events` to the flows as the conversation does; returns the texts sent and the final session. */
async function run(config: AgentPackConfig, events: FlowEvent[], now = 1_000) {
  let session: Session = newSession()
  const sent: string[] = []
  for (const event of events) {
    const step = await handleEvent({
      event,
      eventId: 'e',
      connectionId: CONNECTION,
      session,
      config,
      now,
      log: createLogger('test', 'error'),
      chat: { tools: [], fetch: fetch, history: () => [] },
    })
    session = step.session
    for (const command of step.commands)
      if (command.name === 'send-message') sent.push(command.message.type === 'text' ? command.message.content : command.message.type)
  }
  return { sent, session }
}

const languages = 'languages: { en: { greetingMessage: "Hi {userName}" }, es: { greetingMessage: "Hola {userName}" } }'

describe('the welcome flow', () => {
  it('greets once when the connection completes, in the default language', async () => {
    const { sent } = await run(pack(languages), [completed, completed])
    expect(sent).toEqual(['Hi there'])
  })

  it('with sendOnProfile, waits for the profile and greets in its language with its name', async () => {
    const config = pack(`${languages}\nflows: { welcome: { sendOnProfile: true } }`)
    const { sent, session } = await run(config, [completed, profile({ displayName: 'Ana', preferredLanguage: 'es-CO' })])
    expect(sent).toEqual(['Hola Ana'])
    expect(session).toMatchObject({ language: 'es', userName: 'Ana', timer: undefined })
  })

  it('with sendOnProfile and no profile, sets a timer and greets when it fires', async () => {
    const config = pack(`${languages}\nflows: { welcome: { sendOnProfile: "true" } }`)
    const waiting = await run(config, [completed], 1_000)
    expect(waiting.sent).toEqual([])
    expect(waiting.session.timer).toEqual({ flow: 'welcome', at: 1_000 + PROFILE_WAIT_MS })
    const { sent } = await run(config, [completed, { type: 'timer', at: 1_000 + PROFILE_WAIT_MS }, profile({ preferredLanguage: 'es' })])
    expect(sent).toEqual(['Hi there'])
  })

  it('uses strings[templateKey] as the template, and says nothing when disabled', async () => {
    const custom = pack(
      'languages: { en: { strings: { HELLO: "Welcome aboard, {userName}" } } }\nflows: { welcome: { templateKey: HELLO } }',
    )
    expect((await run(custom, [profile({ displayName: 'Bo' }), completed])).sent).toEqual(['Welcome aboard, Bo'])
    const disabled = await run(pack(`${languages}\nflows: { welcome: { enabled: false } }`), [
      completed,
      profile({ preferredLanguage: 'es' }),
    ])
    expect(disabled.sent).toEqual([])
    expect(disabled.session.language).toBe('es')
  })

  it("falls back to the built-in greeting of the user's language when the pack has none", async () => {
    const { sent } = await run(pack('flows: { welcome: { sendOnProfile: true } }'), [
      completed,
      profile({ displayName: 'Zoé', preferredLanguage: 'fr' }),
    ])
    expect(sent).toEqual(['Bonjour Zoé ! Comment puis-je vous aider aujourd’hui ?'])
  })
})
