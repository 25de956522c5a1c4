/**
 * Authentication in workerd: the user directory object (through bindings.ts), and the
 * `required` gate run by the real conversation object of a Worker with AUTH_REQUIRED=true.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, inject, it } from 'vitest'
import { directory } from '../src/bindings.ts'
import { BUILT_IN_TEXTS } from '../src/i18n/index.ts'
import { connectionState, TestAgent, textMessage } from './support/agent.ts'

describe('the user directory', () => {
  it('an identity authenticated on two connections is one user; signing out removes one connection', async () => {
    const identity = `ana-${crypto.randomUUID()}`
    const [phone, laptop] = [crypto.randomUUID(), crypto.randomUUID()]
    await directory(env).signIn(phone, { identity, roles: ['editor'], admin: false }, 1)
    await directory(env).signIn(laptop, { identity, roles: ['editor', 'approver'], admin: true }, 2)
    await directory(env).signIn(laptop, { identity, roles: ['editor', 'approver'], admin: true }, 2)
    expect(await directory(env).user(identity)).toEqual({
      identity,
      roles: ['editor', 'approver'],
      admin: true,
      connectionIds: [phone, laptop],
    })
    await directory(env).signOut(phone)
    await directory(env).signOut(phone)
    expect(await directory(env).user(identity)).toEqual({ identity, roles: ['editor', 'approver'], admin: true, connectionIds: [laptop] })
  })

  it('a connection on which someone else signs in leaves the first identity', async () => {
    const [first, second] = [`a-${crypto.randomUUID()}`, `b-${crypto.randomUUID()}`]
    const connection = crypto.randomUUID()
    await directory(env).signIn(connection, { identity: first, roles: ['user'], admin: false })
    await directory(env).signIn(connection, { identity: second, roles: ['user'], admin: false })
    expect(await directory(env).user(first)).toBeNull()
    expect((await directory(env).user(second))?.connectionIds).toEqual([connection])
  })
})

describe('flows.authentication.required (AUTH_REQUIRED=true)', () => {
  it('greets a guest with the prompt, then answers AUTH_REQUIRED and never calls the model', async () => {
    const agent = await TestAgent.connect({ worker: env.AUTH_REQUIRED_WORKER })
    const connectionId = crypto.randomUUID()
    const completed = agent.sendEvent(connectionState(connectionId, 'completed'), 1)
    expect((await agent.command(connectionId, `${completed.id}:0`)).command.message).toMatchObject({ type: 'text' })
    expect((await agent.command(connectionId, `${completed.id}:1`)).command.message).toEqual({
      connectionId,
      type: 'text',
      content: BUILT_IN_TEXTS.en!.AUTH_REQUIRED,
    })
    const question = `guest question ${crypto.randomUUID()}`
    const text = agent.sendEvent(textMessage(connectionId, question), 2)
    expect((await agent.command(connectionId, `${text.id}:0`)).command.message).toEqual({
      connectionId,
      type: 'text',
      content: BUILT_IN_TEXTS.en!.AUTH_REQUIRED,
    })
    const requests = await (await fetch(inject('llmRequestsUrl'))).json<{ messages: { content: unknown }[] }[]>()
    expect(requests.filter((request) => JSON.stringify(request.messages).includes(question))).toEqual([])
    await agent.close()
  })
})
