/**
 * Durable, retried presentation-request callbacks on a real agent-node (real SQLite, the callback
 * receiver on loopback). Opening the request's short URL makes the flow report `scanned`; the
 * receiver first fails, or is down across a restart of agent-node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { conditions } from '../support/conditions.ts'
import { recordDeliveries } from '../support/delivery-records.ts'

describe('presentation-request callbacks', () => {
  let receiver: EventReceiver
  let agent: TestAgentNode
  let definitionId: string
  /** Every callback POST received, with the status answered (0 while not answered yet); `answers` decides it per ref. */
  const posts: { ref: string; status: string; answered: number }[] = []
  const answers = new Map<string, () => number | Promise<number>>()
  const posted = conditions(() => JSON.stringify(posts))

  beforeAll(async () => {
    receiver = await startEventReceiver({
      status: async ({ body }) => {
        const post = { ref: String(body.ref), status: String(body.status), answered: 0 }
        posts.push(post)
        posted.changed()
        post.answered = (await answers.get(post.ref)?.()) ?? 204
        posted.changed()
        return post.answered
      },
    })
    // EVENTS_RETRY_*: 20-100 ms backoff, 3 attempts in all.
    agent = await startTestAgentNode()
    const created = await agent.admin('/v1/credential-types', { body: { name: 'member', version: '1.0', attributes: ['name'] } })
    expect(created.status).toBe(201)
    definitionId = ((await created.json()) as { id: string }).id
  }, 120_000)

  afterAll(async () => {
    await agent?.close()
    await receiver?.close()
  })

  /** Makes a request with a callback and opens its short URL (the flow reports `scanned`). */
  const requestAndScan = async (ref: string) => {
    const response = await agent.admin('/v1/presentation-request', {
      body: {
        ref,
        callbackUrl: `${receiver.url}/callback`,
        requestedCredentials: [{ credentialDefinitionId: definitionId, attributes: ['name'] }],
      },
    })
    expect(response.status).toBe(200)
    const { shortUrl, proofExchangeId } = (await response.json()) as { shortUrl: string; proofExchangeId: string }
    const opened = await fetch(shortUrl, { redirect: 'manual' })
    await opened.body?.cancel()
    return proofExchangeId
  }
  const postsOf = (ref: string) => posts.filter((p) => p.ref === ref).map((p) => [p.status, p.answered])
  /** Waits until `count` POSTs of `ref` were received and answered. */
  const answered = (ref: string, count: number) =>
    posted.until(() => postsOf(ref).length === count && postsOf(ref).every(([, status]) => status !== 0))

  it('retries a failed callback with the webhook policy until it is acknowledged', async () => {
    let failures = 2
    answers.set('retried', () => (failures-- > 0 ? 503 : 204))
    await requestAndScan('retried')
    await answered('retried', 3)
    expect(postsOf('retried')).toEqual([
      ['scanned', 503],
      ['scanned', 503],
      ['scanned', 204],
    ])
  })

  it("gives up after the policy's attempts, and does not retry a 4xx", async () => {
    answers.set('exhausted', () => 500)
    answers.set('refused', () => 410)
    await requestAndScan('exhausted')
    await requestAndScan('refused')
    await answered('exhausted', 3)
    await answered('refused', 1)
    expect(postsOf('exhausted')).toEqual([
      ['scanned', 500],
      ['scanned', 500],
      ['scanned', 500],
    ])
    expect(postsOf('refused')).toEqual([['scanned', 410]])
  })

  it('POSTs a report again after a restart when the POST in flight was cut off by the stop', async () => {
    let releaseHeld!: (status: number) => void
    const held = new Promise<number>((resolve) => (releaseHeld = resolve))
    let up = false
    answers.set('restarted', () => (up ? 204 : held))
    await requestAndScan('restarted')
    await posted.until(() => postsOf('restarted').length === 1) // in flight, not answered
    up = true
    await agent.restart() // the stop abandons the POST in flight; the report stays owed
    releaseHeld(503) // the first POST's connection is gone: this answer reaches no one
    await answered('restarted', 2)
    expect(postsOf('restarted')).toEqual([
      ['scanned', 503],
      ['scanned', 204],
    ])
    // Reports acknowledged, refused or given up before the restart are not owed any more.
    expect(postsOf('retried')).toHaveLength(3)
    expect(postsOf('exhausted')).toHaveLength(3)
    expect(postsOf('refused')).toHaveLength(1)
  })

  it('keeps the attempts across a restart; a report given up is a dead letter, and replays', async () => {
    let releaseHeld!: (status: number) => void
    const held = new Promise<number>((resolve) => (releaseHeld = resolve))
    let answer: () => number | Promise<number> = () => {
      answer = () => held // the second attempt hangs until the restart cuts it off
      return 500
    }
    answers.set('persisted', () => answer())
    const flowId = await requestAndScan('persisted')
    await posted.until(() => postsOf('persisted').length === 2) // one failed attempt, one in flight
    answer = () => 500
    await agent.restart() // the attempt in flight is abandoned and not counted
    releaseHeld(503)
    await answered('persisted', 4)
    type Listed = { id: string; reason: string; attempts: number }
    let deadLetters: Listed[] = []
    while (deadLetters.length === 0) {
      const listed = await agent.admin(`/v1/dead-letters?subscriber=presentation-callbacks&connectionId=presentation-flow:${flowId}`)
      deadLetters = ((await listed.json()) as { deadLetters: Listed[] }).deadLetters
      if (deadLetters.length === 0) await new Promise((resolve) => setTimeout(resolve, 20)) // written just after the 4th answer
    }
    // 3 attempts in all: the one before the restart counts, so only two follow it.
    expect(postsOf('persisted')).toEqual([
      ['scanned', 500],
      ['scanned', 503],
      ['scanned', 500],
      ['scanned', 500],
    ])
    expect(deadLetters).toMatchObject([{ reason: 'exhausted', attempts: 3 }])
    const delivery = recordDeliveries(agent.node.delivery, 'presentation-callbacks')
    answer = () => 204
    expect((await agent.admin(`/v1/dead-letters/${deadLetters[0]!.id}/replay`, { method: 'POST' })).status).toBe(202)
    await delivery.until(() => delivery.records.some((r) => r.status === 'replayed'))
    expect(postsOf('persisted').at(-1)).toEqual(['scanned', 204])
  })

  it('drops the reports still owed of a flow that was deleted', async () => {
    let releaseHeld!: (status: number) => void
    const held = new Promise<number>((resolve) => (releaseHeld = resolve))
    answers.set('deleted', () => held)
    const flowId = await requestAndScan('deleted')
    await posted.until(() => postsOf('deleted').length === 1) // in flight
    const delivery = recordDeliveries(agent.node.delivery, 'presentation-callbacks')
    expect((await agent.admin(`/v1/presentations/${flowId}`, { method: 'DELETE' })).status).toBe(204)
    releaseHeld(503) // would be retried, but the flow is gone
    await delivery.until(() =>
      delivery.records.some((r) => r.event.connectionId === `presentation-flow:${flowId}` && r.status === 'acknowledged'),
    )
    expect(postsOf('deleted')).toEqual([['scanned', 503]])
  })
})
