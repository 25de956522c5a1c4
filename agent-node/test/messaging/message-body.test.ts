/**
 * `POST /v1/message` bodies the admin API refuses before any DIDComm: an unknown or missing
 * `type` is a 400 naming `type` and listing the known types, never a silent 200.
 */
import { randomUUID } from 'node:crypto'
import { SEND_MESSAGE_TYPES } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { expectRejected } from '../support/bad-bodies.ts'

describe('POST /v1/message body validation', () => {
  let agent: TestAgentNode

  beforeAll(async () => {
    agent = await startTestAgentNode({}, { label: 'message-body' })
  }, 120_000)

  afterAll(async () => {
    await agent?.close()
  })

  it.each([
    ['an unknown type', { type: 'fax', content: 'hello' }],
    ['no type', { content: 'hello' }],
  ])('answers %s with a 400 on `type` that lists the known types', async (_, body) => {
    const response = await agent.postMessage({ connectionId: randomUUID(), ...body })
    expect(response.status).toBe(400)
    const error = (await response.json()) as { error: string; message: string; issues: Array<{ field: string; message: string }> }
    expect(error.error).toBe('validation_error')
    expect(error.issues).toHaveLength(1)
    expect(error.issues[0]!.field).toBe('type')
    for (const type of SEND_MESSAGE_TYPES) expect(error.issues[0]!.message).toContain(type)
    expect(SEND_MESSAGE_TYPES).toEqual(expect.arrayContaining(['text', 'menu-display', 'contextual-menu-update', 'terminate-connection']))
  })

  it('rejects bad text bodies with a 400 naming the field', async () => {
    await expectRejected(agent.postMessage, randomUUID(), [
      ['no content', { type: 'text' }, 'content'],
      ['empty content', { type: 'text', content: '' }, 'content'],
      ['no connection', { type: 'text', content: 'hi', connectionId: undefined }, 'connectionId'],
    ])
  })
})
