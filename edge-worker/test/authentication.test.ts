/**
 * Authentication in workerd: the user directory object (through bindings.ts), and the
 * `required` gate run by the real conversation object of a Worker with AUTH_REQUIRED=true.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { describe, expect, inject, it } from 'vitest'
import { directory } from '../src/bindings.ts'
import { holdersQuery } from '../src/directory/Directory.ts'
import { schema } from '../src/directory/schema.ts'
import { BUILT_IN_TEXTS } from '../src/i18n/index.ts'
import { connectionState, TestAgent, textMessage } from './support/agent.ts'

describe('the user directory', () => {
  it('an identity authenticated on two connections is one user; signing out removes one connection', async () => {
    const identity = `ana-${crypto.randomUUID()}`
    const [phone, laptop] = [crypto.randomUUID(), crypto.randomUUID()]
    try {
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
    } finally {
      // The files of this project share one workerd and its objects: an admin left in the directory
      // would get every later approval notice (approvals.test.ts), on a conversation that never began.
      await directory(env).signOut(laptop)
    }
  })

  it('a connection on which someone else signs in leaves the first identity', async () => {
    const [first, second] = [`a-${crypto.randomUUID()}`, `b-${crypto.randomUUID()}`]
    const connection = crypto.randomUUID()
    await directory(env).signIn(connection, { identity: first, roles: ['user'], admin: false })
    await directory(env).signIn(connection, { identity: second, roles: ['user'], admin: false })
    expect(await directory(env).user(first)).toBeNull()
    expect((await directory(env).user(second))?.connectionIds).toEqual([connection])
  })
  it('finds the holders of a role through indexes, never scanning the members', async () => {
    const role = `approver-${crypto.randomUUID()}`
    for (let i = 0; i < 50; i++) {
      await directory(env).signIn(crypto.randomUUID(), {
        identity: `user-${i}-${role}`,
        roles: i % 10 === 0 ? [role] : ['user'],
        admin: false,
      })
    }
    await runInDurableObject(directory(env), async (_instance, state) => {
      const { sql, params } = holdersQuery(drizzle(state.storage, { schema }), [role]).toSQL()
      const plan = state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...(params as SqlStorageValue[]))
        .toArray()
        .map((row) => row.detail)
      expect(plan.some((step) => step.includes('member_roles') && step.startsWith('SEARCH'))).toBe(true)
      expect(plan.filter((step) => step.startsWith('SCAN'))).toEqual([])
    })
    const holders = await directory(env).holders([role])
    expect(holders.filter((user) => user.identity.endsWith(role)).map((user) => user.identity)).toEqual(
      [0, 10, 20, 30, 40].map((i) => `user-${i}-${role}`),
    )
  })

  it('a connection that signs in again with other roles, or signs out, no longer holds the roles it had', async () => {
    const [kept, dropped] = [`kept-${crypto.randomUUID()}`, `dropped-${crypto.randomUUID()}`]
    const identity = `cy-${crypto.randomUUID()}`
    const [phone, laptop] = [crypto.randomUUID(), crypto.randomUUID()]
    await directory(env).signIn(phone, { identity, roles: [kept, dropped], admin: false }, 1)
    await directory(env).signIn(laptop, { identity, roles: [dropped], admin: false }, 2)
    await directory(env).signIn(phone, { identity, roles: [kept], admin: false }, 3)
    await directory(env).signOut(laptop)
    expect((await directory(env).holders([dropped])).some((user) => user.identity === identity)).toBe(false)
    expect((await directory(env).holders([kept])).find((user) => user.identity === identity)).toEqual({
      identity,
      roles: [kept],
      admin: false,
      connectionIds: [phone],
    })
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
