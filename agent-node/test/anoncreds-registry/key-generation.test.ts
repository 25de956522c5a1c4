/**
 * Credential definition keys are made off the event loop (CredentialKeyWorkers): while
 * `POST /v1/credential-types` is making definitions (safe primes in worker threads), the same
 * agent answers `GET /v1/agent`, accepts a `POST /v1/message` and delivers it to the wallet.
 * Six types are created back to back (creations run one at a time) so the creation outlasts
 * the calls made meanwhile (a cold creation takes well under a second since the safe-prime sieve); the test asserts the order of events, not their timing. Twenty
 * GETs one after another are more than the few moments between the steps of a blocking creation
 * could serve (with keys made on the event loop the test fails).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCredentialStack, type CredentialStack } from '../support/credential-stack.ts'

describe('credential definition keys off the event loop', () => {
  let stack: CredentialStack
  let connectionId: string

  beforeAll(async () => {
    stack = await startCredentialStack('issuer')
    connectionId = await stack.connectWallet()
  }, 120_000)

  afterAll(async () => {
    await stack?.stop()
  })

  it('answers GET /v1/agent and delivers a POST /v1/message while credential definitions are made', async () => {
    let creating = true
    const creations = Promise.all(
      ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'].map((name) =>
        stack.admin('/v1/credential-types', { name, version: '1.0', attributes: ['name', 'age'] }),
      ),
    ).finally(() => {
      creating = false
    })

    let agentAnswersDuringCreation = 0
    for (let i = 0; i < 20; i++) {
      const agent = await stack.admin<{ name?: string }>('/v1/agent')
      expect(agent.status).toBe(200)
      if (creating) agentAnswersDuringCreation++
    }
    const received = stack.wallet.nextText((text) => text.content === 'still answering', 60_000)
    const sent = await stack.admin<{ id: string }>('/v1/message', { type: 'text', connectionId, content: 'still answering' })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    await received
    const deliveredDuringCreation = creating

    const created = await creations
    expect(created.map((response) => response.status)).toEqual([201, 201, 201, 201, 201, 201])
    expect(agentAnswersDuringCreation).toBe(20)
    expect(deliveredDuringCreation).toBe(true)
  }, 180_000)
})
