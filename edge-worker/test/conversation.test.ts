import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { tunnelGateway } from '../src/bindings.ts'
import { workerConfig } from '../src/config/index.ts'
import { FALLBACK_AFTER_MS } from '../src/conversation/Conversation.ts'
import { BUILT_IN_TEXTS } from '../src/i18n/index.ts'
import { connectionState, sendTextCommand, TestAgent, textMessage } from './support/agent.ts'
import { FAIL_MARKER, TEST_MEMORY_WINDOW, TEST_MODEL, TOOL_MARKER } from './support/constants.ts'
import { conversationAlarm, conversationRows } from './support/storage.ts'

/** A chat-completions request body as the scripted model recorded it. */
interface ChatRequest {
  model: string
  temperature?: number
  max_tokens?: number
  messages: { role: string; content: unknown }[]
}

/** Requests the scripted model received whose last message is the user text `text`. */
async function llmRequestsAnswering(text: string): Promise<ChatRequest[]> {
  const requests = await (await fetch(inject('llmRequestsUrl'))).json<ChatRequest[]>()
  return requests.filter((request) => request.messages.at(-1)?.content === text)
}

const systemPrompt = () => workerConfig(env).languages.en?.systemPrompt

describe('conversation', () => {
  let agent: TestAgent
  beforeEach(async () => {
    agent = await TestAgent.connect()
  })
  afterEach(async () => {
    await agent.close()
  })

  it("greets with the pack's greeting when the connection completes", async () => {
    const connectionId = crypto.randomUUID()
    agent.sendEvent(connectionState(connectionId, 'request-received'), 1)
    const completed = agent.sendEvent(connectionState(connectionId, 'completed'), 2)
    const command = await agent.command(connectionId, `${completed.id}:0`)

    const template = workerConfig(env).languages.en?.greetingMessage
    expect(template).toContain('{userName}')
    expect(command.command).toEqual({
      name: 'send-message',
      message: { connectionId, type: 'text', content: template?.replace('{userName}', BUILT_IN_TEXTS.en!.USER_NAME_UNKNOWN) },
    })
  })

  it('greets once even if the connection reports completed again under another event id', async () => {
    const connectionId = crypto.randomUUID()
    const first = agent.sendEvent(connectionState(connectionId, 'completed'), 1)
    await agent.acks(first.id)
    const second = agent.sendEvent(connectionState(connectionId, 'completed'), 2)
    await agent.acks(second.id)
    await agent.command(connectionId, `${first.id}:0`)
    const handled = async () =>
      (await conversationRows<{ n: number }>(connectionId, 'SELECT count(*) AS n FROM events WHERE handled_at IS NOT NULL'))[0]!.n
    while ((await handled()) < 2) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await conversationRows(connectionId, 'SELECT idempotency_key FROM effects ORDER BY position')).toEqual([
      { idempotency_key: `${first.id}:0` },
    ])
  })

  it("answers a text message with the model's reply, in the message's thread", async () => {
    const connectionId = crypto.randomUUID()
    const text = `hello model ${crypto.randomUUID()}`
    const event = agent.sendEvent(textMessage(connectionId, text, 'thread-1'), 1)
    await agent.acks(event.id)
    const command = await agent.command(connectionId, `${event.id}:0`)

    expect(command.command.message).toEqual({ connectionId, type: 'text', content: `echo: ${text}`, threadId: 'thread-1' })
    const [request, ...others] = await llmRequestsAnswering(text)
    expect(others).toEqual([])
    expect(request).toMatchObject({
      model: TEST_MODEL,
      temperature: 0.3,
      max_tokens: 512,
      messages: [
        { role: 'system', content: systemPrompt() },
        { role: 'user', content: text },
      ],
    })
  })

  it('answers a message whose thread id agent-node cannot send in outside the thread, and goes on answering', async () => {
    const connectionId = crypto.randomUUID()
    const first = agent.sendEvent(textMessage(connectionId, 'in a foreign thread', 'urn:uuid:1'), 1)
    const reply = await agent.command(connectionId, `${first.id}:0`)
    expect(reply.command.message).toEqual({ connectionId, type: 'text', content: 'echo: in a foreign thread' })
    const second = agent.sendEvent(textMessage(connectionId, 'next'), 2)
    expect((await agent.command(connectionId, `${second.id}:0`)).command.message).toMatchObject({ content: 'echo: next' })
  })

  it('leaves no fallback alarm set once a turn is answered', async () => {
    const connectionId = crypto.randomUUID()
    const sent = Date.now()
    const event = agent.sendEvent(textMessage(connectionId, `no alarm after this ${crypto.randomUUID()}`), 1)
    await agent.acks(event.id)
    await agent.command(connectionId, `${event.id}:0`)
    // the alarm armed when the event was stored is due 5 s later; the pass that answered the
    // event drops it once nothing is left to do
    await expect.poll(() => conversationAlarm(connectionId)).toBeNull()
    // not a timing assertion: the premise of the one above, which would also hold once the
    // alarm had fired by itself
    expect(Date.now() - sent).toBeLessThan(FALLBACK_AFTER_MS)
  })

  it('gives the model the system prompt and only the last memory.window turns', async () => {
    const connectionId = crypto.randomUUID()
    const texts = ['first', 'second', 'third'].map((word) => `${word} ${crypto.randomUUID()}`)
    for (const [index, text] of texts.entries()) {
      const event = agent.sendEvent(textMessage(connectionId, text), index + 1)
      await agent.command(connectionId, `${event.id}:0`)
    }

    expect(TEST_MEMORY_WINDOW).toBe(3)
    const [request] = await llmRequestsAnswering(texts[2]!)
    expect(request?.messages).toEqual([
      { role: 'system', content: systemPrompt() },
      { role: 'user', content: texts[1] },
      { role: 'assistant', content: `echo: ${texts[1]}` },
      { role: 'user', content: texts[2] },
    ])
    expect(await conversationRows(connectionId, 'SELECT role, content FROM turns ORDER BY id')).toEqual(
      texts.flatMap((text) => [
        { role: 'user', content: text },
        { role: 'assistant', content: `echo: ${text}` },
      ]),
    )
  })

  it('applies a late event in sequence order: its reply history leaves out events with a higher seq', async () => {
    const connectionId = crypto.randomUUID()
    const [early, late] = [`early ${crypto.randomUUID()}`, `late ${crypto.randomUUID()}`]
    const second = agent.sendEvent(textMessage(connectionId, late), 2)
    await agent.command(connectionId, `${second.id}:0`)
    const first = agent.sendEvent(textMessage(connectionId, early), 1)
    await agent.command(connectionId, `${first.id}:0`)

    const [request] = await llmRequestsAnswering(early)
    expect(request?.messages).toEqual([
      { role: 'system', content: systemPrompt() },
      { role: 'user', content: early },
    ])
  })

  it('does not ask the model again when a message is delivered again', async () => {
    const connectionId = crypto.randomUUID()
    const text = `just once ${crypto.randomUUID()}`
    const event = agent.sendEvent(textMessage(connectionId, text), 1)
    await agent.command(connectionId, `${event.id}:0`)
    agent.sendEvent(event.event, 1, event.id)
    await agent.acks(event.id, 2)

    expect(await llmRequestsAnswering(text)).toHaveLength(1)
    expect(await conversationRows(connectionId, 'SELECT role FROM turns ORDER BY id')).toEqual([{ role: 'user' }, { role: 'assistant' }])
  })

  it('keeps each tool call and its result in the conversation record', async () => {
    const connectionId = crypto.randomUUID()
    const event = agent.sendEvent(textMessage(connectionId, `look it up ${TOOL_MARKER}`), 1)
    const command = await agent.command(connectionId, `${event.id}:0`)
    expect(command.command.message).toMatchObject({ type: 'text', content: 'tool said: found parley' })
    const rows = await conversationRows<{ role: string; content: string; tool: string | null }>(
      connectionId,
      'SELECT role, content, tool FROM turns ORDER BY id',
    )
    expect(rows.map(({ role, content }) => [role, content])).toEqual([
      ['user', `look it up ${TOOL_MARKER}`],
      ['tool', 'found parley'],
      ['assistant', 'tool said: found parley'],
    ])
    expect(JSON.parse(rows[1]!.tool!)).toEqual({ name: 'lookup', callId: expect.any(String), arguments: { query: 'parley' }, ok: true })
  })

  it('apologises when the model cannot be reached', async () => {
    const connectionId = crypto.randomUUID()
    const event = agent.sendEvent(textMessage(connectionId, `please ${FAIL_MARKER}`), 1)
    const command = await agent.command(connectionId, `${event.id}:0`)
    expect(command.command.message).toMatchObject({ type: 'text', content: BUILT_IN_TEXTS.en!.LLM_UNAVAILABLE })
  })
})

describe('commands while no agent is connected', () => {
  it('keeps a command sent while the agent is away and delivers it on the next connection', async () => {
    const connectionId = crypto.randomUUID()
    const frame = sendTextCommand(connectionId, 'waiting for you')
    await tunnelGateway(env).sendCommand(frame)

    const agent = await TestAgent.connect()
    expect(await agent.command(connectionId, frame.idempotencyKey)).toEqual(frame)
    await agent.close()
  })

  it('sends an unconfirmed reply again after the agent reconnects', async () => {
    const connectionId = crypto.randomUUID()
    const first = await TestAgent.connect({ confirmCommands: false })
    const event = first.sendEvent(textMessage(connectionId, `reconnect ${crypto.randomUUID()}`), 1)
    await first.acks(event.id)
    await first.close()

    const second = await TestAgent.connect()
    const command = await second.command(connectionId, `${event.id}:0`)
    expect(command.command.message).toMatchObject({ type: 'text', content: expect.stringMatching(/^echo: reconnect /) })
    await second.close()
  })
})
