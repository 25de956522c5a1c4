/**
 * Invitations: the agent's public invitation is multi-use, names the public DID and is reused
 * (anonymous `GET {public}/invitation` creates no key and no record, across restarts too);
 * `GET/POST /v1/invitation` name the public DID by default (wallets connect by resolving it, and
 * the connections are listed by `invitationDid`) or are single-use and inline; wallets connect
 * through every URL form the agent prints, `POST /v1/invitation` and `GET /v1/qr` (PNG) work
 * as vs-agent's do, and an invitation too long for a QR code is a 4xx JSON error.
 * A real agent-node on loopback with a real SQLite file, real Credo wallet peers.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonTransformer } from '@credo-ts/core'
import { DidCommDidExchangeState, DidCommOutOfBandRepository } from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selectRows } from '../../src/database/dialect.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { connectionRecord, saveConnection } from '../support/connection-records.ts'

describe('invitations', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-invitations-'))
  let node: TestAgentNode
  let database: Database
  let publicUrl: string
  const wallets: WalletPeer[] = []

  beforeAll(async () => {
    node = await startTestAgentNode({ DATA_DIR: dataDir }, { label: 'inviter' })
    database = await openDatabase(join(dataDir, 'agent.sqlite'))
    publicUrl = `http://127.0.0.1:${node.node.publicPort}`
  }, 120_000)
  afterAll(async () => {
    for (const wallet of wallets) await wallet.stop()
    await database?.close()
    await node?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const count = async (table: 'kms_keys' | 'credo_records') => {
    const [row] = await selectRows<{ n: number | string }>(
      database,
      table === 'kms_keys' ? sql`SELECT COUNT(*) AS n FROM kms_keys` : sql`SELECT COUNT(*) AS n FROM credo_records`,
    )
    return Number(row?.n)
  }
  const publicInvitation = async () => {
    const response = await fetch(`${publicUrl}/invitation`, { redirect: 'manual' })
    expect(response.status).toBe(302)
    return response.headers.get('location')!
  }
  const newWallet = async (label: string) => {
    const wallet = await WalletPeer.create({ label, logger: createLogger('silent', 'wallet') })
    wallets.push(wallet)
    return wallet
  }

  const decode = (url: string) =>
    JSON.parse(Buffer.from(new URL(url).searchParams.get('oob')!, 'base64url').toString()) as { label: string; services: unknown[] }
  const connectionsNaming = async (did: string) => {
    const response = await node.admin(`/v1/connections?invitationDid=${encodeURIComponent(did)}`)
    expect(response.status).toBe(200)
    return (await response.json()) as { id: string; theirLabel: string; outOfBandId: string }[]
  }

  it('300 anonymous GET /invitation store no invitation and create no key: one multi-use invitation is reused, across a restart too', async () => {
    const first = await publicInvitation()
    expect(first).toMatch(/\/qr\?oob=/)
    expect(decode(first).services).toEqual([node.node.publicDid])
    const keys = await count('kms_keys')
    const records = await count('credo_records')
    for (let batch = 0; batch < 299; batch += 23) {
      const urls = await Promise.all(Array.from({ length: Math.min(23, 299 - batch) }, publicInvitation))
      expect(new Set(urls)).toEqual(new Set([first]))
    }
    expect(await count('kms_keys')).toBe(keys)
    expect(await count('credo_records')).toBe(records)

    await node.restart()
    publicUrl = `http://127.0.0.1:${node.node.publicPort}`
    const afterRestart = new URL(await publicInvitation())
    expect(afterRestart.searchParams.get('oob')).toBe(new URL(first).searchParams.get('oob'))
    expect(await count('kms_keys')).toBe(keys)
  }, 120_000)

  it('two wallets connect through the printed invitation page URL: the invitation is multi-use', async () => {
    const [alice, bob] = await Promise.all([newWallet('alice'), newWallet('bob')])
    const page = `${publicUrl}/invitation`
    await alice.connect(page)
    await bob.connect(page)
    const outOfBandIds = new Set<string | undefined>()
    for (const label of ['alice', 'bob']) {
      const [connection] = (
        await node.node.agent.modules.didcomm.connections.findAllByQuery({ state: DidCommDidExchangeState.Completed })
      ).filter((c) => c.theirLabel === label)
      expect(connection, label).toBeDefined()
      outOfBandIds.add(connection!.outOfBandId)
    }
    expect(outOfBandIds.size).toBe(1)
  }, 120_000)

  it('GET /v1/qr is a PNG of the public invitation and creates nothing; its options are checked', async () => {
    const keys = await count('kms_keys')
    const response = await node.admin('/v1/qr?size=300&level=M&fcolor=112233&bcolor=ffffff')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    const png = new Uint8Array(await response.arrayBuffer())
    expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(await count('kms_keys')).toBe(keys)
    expect((await node.admin('/v1/qr?fcolor=red')).status).toBe(400)
  })

  it('POST /v1/invitation: no body is the multi-use public-DID invitation; multiUse: false is single-use; label is honoured; GET takes multiUse too', async () => {
    const plain = await node.admin('/v1/invitation', { method: 'POST' })
    expect(plain.status).toBe(200)
    const { url, outOfBandId } = (await plain.json()) as { url: string; outOfBandId: string }
    expect(decode(url)).toMatchObject({ label: 'inviter', services: [node.node.publicDid] })
    expect((await node.node.agent.modules.didcomm.oob.getById(outOfBandId)).reusable).toBe(true)

    const shop = await node.admin('/v1/invitation', { body: { multiUse: false, label: 'Shop', didCommVersion: 'v1' } })
    const created = (await shop.json()) as { url: string; outOfBandId: string }
    expect(decode(created.url).label).toBe('Shop')
    expect((await node.node.agent.modules.didcomm.oob.getById(created.outOfBandId)).reusable).toBe(false)

    const viaGet = (await (await node.admin('/v1/invitation?multiUse=false')).json()) as { outOfBandId: string }
    expect((await node.node.agent.modules.didcomm.oob.getById(viaGet.outOfBandId)).reusable).toBe(false)
    const byDefault = (await (await node.admin('/v1/invitation')).json()) as { url: string; outOfBandId: string }
    expect(decode(byDefault.url).services).toEqual([node.node.publicDid])
    expect((await node.node.agent.modules.didcomm.oob.getById(byDefault.outOfBandId)).reusable).toBe(true)
  })

  it('GET /v1/invitation names the public DID: two wallets connect through it, each names the DID as invitationDid, GET /v1/connections?invitationDid lists both', async () => {
    const publicDid = node.node.publicDid
    expect(publicDid).toMatch(/^did:webvh:/)
    const { url, outOfBandId } = (await (await node.admin('/v1/invitation')).json()) as { url: string; outOfBandId: string }
    expect(decode(url).services).toEqual([publicDid])
    const [carol, dave] = await Promise.all([newWallet('carol'), newWallet('dave')])
    for (const wallet of [carol, dave]) {
      const connectionId = await wallet.connect(url)
      const theirView = await wallet.agent.modules.didcomm.connections.getById(connectionId)
      expect(theirView.invitationDid).toBe(publicDid)
      expect(theirView.theirLabel).toBe('inviter')
    }
    const listed = await connectionsNaming(publicDid)
    const fromThisInvitation = listed.filter((connection) => connection.outOfBandId === outOfBandId)
    expect(fromThisInvitation.map((connection) => connection.theirLabel).sort()).toEqual(['carol', 'dave'])
    // the public invitation names the DID too: alice and bob (connected through /invitation) are listed
    expect(listed.map((connection) => connection.theirLabel)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol', 'dave']))
  }, 120_000)

  it('GET /v1/invitation?multiUse=false is single-use with an inline did:key service: a wallet connects, and its connection does not name the public DID', async () => {
    const { url, outOfBandId } = (await (await node.admin('/v1/invitation?multiUse=false')).json()) as { url: string; outOfBandId: string }
    const [service] = decode(url).services as { recipientKeys: string[] }[]
    expect(service!.recipientKeys[0]).toMatch(/^did:key:z6Mk/)
    const erin = await newWallet('erin')
    const connectionId = await erin.connect(url)
    expect((await erin.agent.modules.didcomm.connections.getById(connectionId)).invitationDid).not.toBe(node.node.publicDid)
    expect((await node.node.agent.modules.didcomm.oob.getById(outOfBandId)).state).toBe('done')
    const listed = await connectionsNaming(node.node.publicDid)
    expect(listed.map((connection) => connection.theirLabel)).not.toContain('erin')
  }, 120_000)

  it('GET /qr: an invitation too long for a QR code is a 414 JSON error, a missing one a 400 JSON error', async () => {
    const tooLong = await fetch(`${publicUrl}/qr?oob=${'A'.repeat(6_000)}`)
    expect(tooLong.status).toBe(414)
    expect(await tooLong.json()).toMatchObject({ error: 'invitation_too_long' })
    const missing = await fetch(`${publicUrl}/qr`)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ error: 'validation_error' })
    const fits = await fetch(`${publicUrl}/qr?oob=${'A'.repeat(500)}`)
    expect(fits.status).toBe(200)
  })

  it('GET /v1/connections?invitationDid lists the connections of 600 invitations naming the DID, whole and in pages', async () => {
    // one SELECT per invitation made SQLite refuse the query ("too many terms in compound SELECT") past 500
    const { agent, publicDid } = node.node
    const { outOfBandId } = (await (await node.admin('/v1/invitation', { method: 'POST' })).json()) as { outOfBandId: string }
    const invitation = await agent.modules.didcomm.oob.getById(outOfBandId)
    const invitations = agent.dependencyManager.resolve(DidCommOutOfBandRepository)
    const outOfBandIds = [outOfBandId]
    for (let i = 0; i < 600; i++) {
      const copy = Object.assign(JsonTransformer.clone(invitation), { id: randomUUID() })
      await invitations.save(agent.context, copy)
      outOfBandIds.push(copy.id)
    }
    const through: string[] = []
    for (const [i, id] of [outOfBandIds[0]!, outOfBandIds[300]!, outOfBandIds[600]!].entries()) {
      const record = Object.assign(connectionRecord(9_000 + i, { createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)) }), { outOfBandId: id })
      await saveConnection(agent, record)
      through.push(record.id)
    }
    const listed = await connectionsNaming(publicDid)
    expect(listed.map((connection) => connection.id)).toEqual(expect.arrayContaining(through))
    const page = await node.admin(`/v1/connections?invitationDid=${encodeURIComponent(publicDid)}&limit=2`)
    expect(page.status).toBe(200)
    expect(((await page.json()) as { id: string }[]).map((connection) => connection.id)).toEqual([through[2], through[1]])
  }, 120_000)
})
