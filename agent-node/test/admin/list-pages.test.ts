/**
 * The admin API's lists in pages (`GET /v1/connections`, `/v1/credential-exchanges`,
 * `/v1/presentations`): with `limit`, a page newest first and the next page's URL in a `Link`
 * header (RFC 8288) whose opaque `cursor` continues after the page's last record, the filters
 * kept; without `limit`, the whole list as before. The `terminated` and `completed` connection
 * states are told apart in the query itself, so pages of either are full. A real agent-node on
 * loopback with a real SQLite file; the records are real Credo records saved through the agent's
 * repositories (DID Exchange and credential exchanges with dozens of wallets would only slow the
 * test).
 */
import { randomUUID } from 'node:crypto'
import {
  DidCommConnectionRepository,
  DidCommCredentialExchangeRecord,
  DidCommCredentialExchangeRepository,
  DidCommCredentialRole,
  DidCommCredentialState,
  DidCommDidExchangeState,
  DidCommProofExchangeRecord,
  DidCommProofExchangeRepository,
  DidCommProofRole,
  DidCommProofState,
  type DidCommConnectionRecord,
} from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { connectionRecord, saveConnection } from '../support/connection-records.ts'

type ConnectionView = { id: string; state: string; createdAt: string }
type ErrorBody = { error: string; issues?: { field: string; message: string }[] }

describe('admin lists in pages', () => {
  let node: TestAgentNode
  /** Every seeded connection's id, by kind. */
  const seeded = { completed: [] as string[], terminated: [] as string[], requested: [] as string[] }

  /** Saves a connection of `kind` created at `createdAt` (ms). */
  async function seed(kind: keyof typeof seeded, createdAt: number): Promise<DidCommConnectionRecord> {
    const record = connectionRecord(Object.values(seeded).flat().length, {
      state: kind === 'requested' ? DidCommDidExchangeState.RequestReceived : DidCommDidExchangeState.Completed,
      hungUp: kind === 'terminated',
      createdAt: new Date(createdAt),
    })
    await saveConnection(node.node.agent, record)
    seeded[kind].push(record.id)
    return record
  }

  beforeAll(async () => {
    node = await startTestAgentNode({}, { label: 'connection-pages' })
    const start = Date.UTC(2026, 0, 1)
    // 30 connections; every third shares the creation time of the one before (ties are ordered by id)
    for (let i = 0; i < 30; i++) {
      const kind = i % 5 === 3 ? 'terminated' : i % 7 === 6 ? 'requested' : 'completed'
      await seed(kind, start + (i - (i % 3 === 2 ? 1 : 0)) * 1_000)
    }
  }, 120_000)
  afterAll(async () => {
    await node?.close()
  })

  /** One list or page: the ids (field `key` of each item) and the next page's URL from its `Link`. */
  async function list(path: string, key = 'id'): Promise<{ ids: string[]; next: string | undefined; response: Response }> {
    const response = await node.admin(path)
    expect(response.status).toBe(200)
    const link = response.headers.get('link')
    const next = link?.match(/^<([^>]+)>; rel="next"$/)?.[1]
    if (link !== null) expect(next).toBeDefined()
    return { ids: ((await response.json()) as Record<string, string>[]).map((item) => item[key]!), next, response }
  }

  /** Follows the `Link` headers from `path`; the ids of each page. */
  async function pages(path: string, key = 'id'): Promise<string[][]> {
    const all: string[][] = []
    let next: string | undefined = path
    while (next) {
      const page = await list(next, key)
      all.push(page.ids)
      next = page.next
    }
    return all
  }

  it('without limit answers every connection newest first and no Link header', async () => {
    const { ids, response } = await list('/v1/connections')
    expect(response.headers.get('link')).toBeNull()
    expect(ids).toHaveLength(30)
    const views = (await (await node.admin('/v1/connections')).json()) as ConnectionView[]
    const times = views.map((view) => Date.parse(view.createdAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it('with limit pages through the same list, each Link continuing after the last page', async () => {
    const { ids: whole } = await list('/v1/connections')
    const walked = await pages('/v1/connections?limit=7')
    expect(walked.map((page) => page.length)).toEqual([7, 7, 7, 7, 2])
    expect(walked.flat()).toEqual(whole)
    // a page that ends exactly at the last connection has no next page
    expect((await pages('/v1/connections?limit=10')).map((page) => page.length)).toEqual([10, 10, 10])
  })

  it('keeps the filters in the Link and tells terminated from completed connections in full pages', async () => {
    const terminated = await pages('/v1/connections?state=terminated&limit=2')
    expect(terminated.slice(0, -1).every((page) => page.length === 2)).toBe(true)
    expect(terminated.flat().sort()).toEqual([...seeded.terminated].sort())
    const completed = await pages('/v1/connections?state=completed&limit=4')
    expect(completed.slice(0, -1).every((page) => page.length === 4)).toBe(true)
    expect(completed.flat().sort()).toEqual([...seeded.completed].sort())
    const { ids: whole } = await list('/v1/connections?state=completed')
    expect(completed.flat()).toEqual(whole)
    const { next } = await list('/v1/connections?state=request-received&role=responder&limit=1')
    expect(new URL(next!, 'http://x').searchParams.get('state')).toBe('request-received')
    expect(new URL(next!, 'http://x').searchParams.get('role')).toBe('responder')
  })

  it('neither repeats nor skips a connection when one is made between two pages', async () => {
    const first = await list('/v1/connections?limit=5')
    const made = await seed('completed', Date.now())
    const rest = await pages(first.next!)
    expect(rest.flat()).not.toContain(made.id)
    expect([...first.ids, ...rest.flat()]).toEqual((await list('/v1/connections')).ids.filter((id) => id !== made.id))
    await node.node.agent.dependencyManager.resolve(DidCommConnectionRepository).deleteById(node.node.agent.context, made.id)
    seeded.completed.pop()
  })

  it('pages credential and presentation exchanges the same way', async () => {
    const { context, dependencyManager } = node.node.agent
    const start = Date.UTC(2026, 1, 1)
    const credentials = dependencyManager.resolve(DidCommCredentialExchangeRepository)
    const proofs = dependencyManager.resolve(DidCommProofExchangeRepository)
    for (let i = 0; i < 7; i++) {
      const createdAt = new Date(start + i * 1_000)
      const threadId = randomUUID()
      const credential = { threadId, createdAt, protocolVersion: 'v2', role: DidCommCredentialRole.Issuer }
      await credentials.save(context, new DidCommCredentialExchangeRecord({ ...credential, state: DidCommCredentialState.OfferSent }))
      const proof = { threadId, createdAt, protocolVersion: 'v2', role: DidCommProofRole.Verifier }
      await proofs.save(context, new DidCommProofExchangeRecord({ ...proof, state: DidCommProofState.RequestSent }))
    }
    for (const [path, key] of [
      ['/v1/credential-exchanges', 'credentialExchangeId'],
      ['/v1/presentations', 'proofExchangeId'],
    ] as const) {
      const { ids: whole } = await list(path, key)
      expect(whole).toHaveLength(7)
      const walked = await pages(`${path}?limit=3`, key)
      expect(walked.map((page) => page.length)).toEqual([3, 3, 1])
      expect(walked.flat()).toEqual(whole)
    }
  })

  it('answers 400 naming the field for a bad limit or cursor', async () => {
    const issuesOf = async (path: string) => {
      const response = await node.admin(path)
      expect(response.status).toBe(400)
      const body = (await response.json()) as ErrorBody
      expect(body.error).toBe('validation_error')
      return body.issues?.map((issue) => issue.field)
    }
    expect(await issuesOf('/v1/connections?limit=0')).toEqual(['limit'])
    expect(await issuesOf('/v1/connections?limit=1001')).toEqual(['limit'])
    expect(await issuesOf('/v1/connections?limit=ten')).toEqual(['limit'])
    expect(await issuesOf('/v1/connections?limit=5&cursor=not-a-cursor')).toEqual(['cursor'])
    const { next } = await list('/v1/connections?limit=5')
    const cursor = new URL(next!, 'http://x').searchParams.get('cursor')!
    expect(await issuesOf(`/v1/connections?cursor=${cursor}`)).toEqual(['cursor'])
    expect(await issuesOf('/v1/credential-exchanges?limit=-1')).toEqual(['limit'])
    expect(await issuesOf('/v1/presentations?limit=3&cursor=%%%')).toEqual(['cursor'])
  })
})
