/**
 * Durable, retried presentation-request callbacks on a real agent-node (real SQLite, the callback
 * receiver on loopback). Opening the request's short URL makes the flow report `scanned`; the
 * receiver first fails, or is down across a restart of agent-node.
 */
import '../support/anoncreds-engine.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { conditions } from '../support/conditions.ts'

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
    const { shortUrl } = (await response.json()) as { shortUrl: string }
    const opened = await fetch(shortUrl, { redirect: 'manual' })
    await opened.body?.cancel()
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
})
