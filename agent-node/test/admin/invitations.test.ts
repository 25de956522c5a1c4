/**
 * Invitations: the agent's public invitation is multi-use and reused (anonymous `GET
 * {public}/invitation` creates no key and no record, across restarts too), wallets connect
 * through every URL form the agent prints, `POST /v1/invitation` and `GET /v1/qr` (PNG) work
 * as vs-agent's do, and an invitation too long for a QR code is a 4xx JSON error.
 * A real agent-node on loopback with a real SQLite file, real Credo wallet peers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidCommDidExchangeState } from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selectRows } from '../../src/database/dialect.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/terminal-wallet/WalletPeer.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

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

  it('300 anonymous GET /invitation store no invitation and create no key: one multi-use invitation is reused, across a restart too', async () => {
    const first = await publicInvitation()
    expect(first).toMatch(/\/qr\?oob=/)
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

  it('POST /v1/invitation: no body is a single-use invitation; multiUse and label are honoured; GET takes multiUse too', async () => {
    const decode = (url: string) =>
      JSON.parse(Buffer.from(new URL(url).searchParams.get('oob')!, 'base64url').toString()) as { label: string }
    const plain = await node.admin('/v1/invitation', { method: 'POST' })
    expect(plain.status).toBe(200)
    const { url, outOfBandId } = (await plain.json()) as { url: string; outOfBandId: string }
    expect(decode(url).label).toBe('inviter')
    expect((await node.node.agent.modules.didcomm.oob.getById(outOfBandId)).reusable).toBe(false)

    const shop = await node.admin('/v1/invitation', { body: { multiUse: true, label: 'Shop', didCommVersion: 'v1' } })
    const created = (await shop.json()) as { url: string; outOfBandId: string }
    expect(decode(created.url).label).toBe('Shop')
    expect((await node.node.agent.modules.didcomm.oob.getById(created.outOfBandId)).reusable).toBe(true)

    const viaGet = (await (await node.admin('/v1/invitation?multiUse=true')).json()) as { outOfBandId: string }
    expect((await node.node.agent.modules.didcomm.oob.getById(viaGet.outOfBandId)).reusable).toBe(true)
  })

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
})
