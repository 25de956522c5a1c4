/**
 * Retention of records in a final state (`retention/records.ts`, docs/operations.md "Retention")
 * on both dialects, with a real Credo agent on the agent database: with RECORDS_RETENTION_DAYS,
 * finished credential and proof exchanges (with their presentation flows), viewed sent messages
 * and expired short URLs last changed before the limit go, in batches; recent ones, records that
 * may still move, flows still owing callback reports and connections stay; 0 keeps everything.
 */
import type { BaseRecordAny, Repository } from '@credo-ts/core'
import {
  DidCommConnectionRecord,
  DidCommConnectionRepository,
  DidCommCredentialExchangeRecord,
  DidCommCredentialExchangeRepository,
  DidCommCredentialRole,
  DidCommCredentialState,
  DidCommDidExchangeRole,
  DidCommDidExchangeState,
  DidCommProofExchangeRecord,
  DidCommProofExchangeRepository,
  DidCommProofRole,
  DidCommProofState,
} from '@credo-ts/didcomm'
import { afterEach, describe, expect, it } from 'vitest'
import { createDidcommAgent, type DidcommAgent } from '../../src/didcomm/agent.ts'
import { createLogger } from '../../src/logging/index.ts'
import { SentMessageRecord, sentMessageRepository } from '../../src/messaging/SentMessageRecord.ts'
import { PresentationFlowRecord } from '../../src/identity-proofs/PresentationFlowRecord.ts'
import { RetentionPruner } from '../../src/retention/pruner.ts'
import { TerminalRecords } from '../../src/retention/records.ts'
import { ShortUrlRecord } from '../../src/short-urls/ShortUrlRecord.ts'
import { openWallet } from '../../src/wallet/index.ts'
import type { DrizzleStorageService } from '../../src/wallet/storage/index.ts'
import { recordRepository } from '../../src/wallet/storage/repository.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { TEST_WALLET_KEY } from '../support/record-store.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const DAY = 24 * 60 * 60 * 1000
const logger = createLogger('silent')

/** Resolves once the clock has moved past now, so records saved before and after never share a millisecond. */
async function nextMillisecond(): Promise<void> {
  const start = Date.now()
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1))
}

describe.each(dialects)('retention of final records on %s', (dialect) => {
  const databases = useTempDatabases('parley-retention-records-', dialect)
  let agent: DidcommAgent | undefined
  afterEach(async () => {
    await agent?.shutdown()
    agent = undefined
  })

  /** A real agent on this test's database, the outbox beside it, and a pruner keeping records `recordsDays`. */
  async function setUp(recordsDays: number) {
    const database = await databases.open()
    const { kms, storageService } = await openWallet(database, TEST_WALLET_KEY)
    agent = createDidcommAgent({ endpoints: [], inboundTransports: [], kms, storageService, logger, logLevel: 'warn' })
    await agent.initialize()
    const outbox = await OutboxStore.open(database)
    const retention = { eventsDays: 0, deadLettersDays: 0, recordsDays }
    return {
      agent,
      storageService,
      pruner: new RetentionPruner(outbox, retention, logger, { records: new TerminalRecords(agent, storageService) }),
    }
  }

  /** Saves `record` with Credo's `repository`. */
  async function saved<R extends BaseRecordAny>(a: DidcommAgent, repository: Repository<R>, record: R): Promise<R> {
    await repository.save(a.context, record)
    return record
  }

  function credential(a: DidcommAgent, state: DidCommCredentialState) {
    const threadId = crypto.randomUUID()
    const record = new DidCommCredentialExchangeRecord({ state, role: DidCommCredentialRole.Issuer, protocolVersion: 'v2', threadId })
    return saved(a, a.dependencyManager.resolve(DidCommCredentialExchangeRepository), record)
  }

  function proof(a: DidcommAgent, state: DidCommProofState) {
    const threadId = crypto.randomUUID()
    const record = new DidCommProofExchangeRecord({ state, role: DidCommProofRole.Verifier, protocolVersion: 'v2', threadId })
    return saved(a, a.dependencyManager.resolve(DidCommProofExchangeRepository), record)
  }

  async function flow(a: DidcommAgent, id: string, owing: boolean) {
    const record = new PresentationFlowRecord({ id, origin: 'invitation', requestedCredentials: [], callbackUrl: 'http://127.0.0.1:1/cb' })
    record.status = 'ok'
    if (owing) record.pendingCallbacks = [{ status: 'ok', claims: [] }]
    await recordRepository(a.context, PresentationFlowRecord).save(a.context, record)
    return record
  }

  async function sent(a: DidcommAgent, state: SentMessageRecord['state']) {
    const record = new SentMessageRecord({ id: crypto.randomUUID(), connectionId: crypto.randomUUID(), state })
    await sentMessageRepository(a.context).save(a.context, record)
    return record
  }

  async function shortUrl(a: DidcommAgent, expiresAt: number) {
    const record = new ShortUrlRecord({
      url: 'https://example.org/?oob=x',
      invitation: {},
      outOfBandId: crypto.randomUUID(),
      expiresAt: new Date(expiresAt).toISOString(),
    })
    await recordRepository(a.context, ShortUrlRecord).save(a.context, record)
    return record
  }

  /** Whether `record` is still stored. */
  async function stored(storage: DrizzleStorageService, a: DidcommAgent, record: BaseRecordAny) {
    const recordClass = record.constructor as typeof DidCommConnectionRecord
    return (await storage.findByQuery(a.context, recordClass, {})).some((r) => r.id === record.id)
  }

  it('deletes final records changed before RECORDS_RETENTION_DAYS and keeps recent, unfinished and owing ones and connections', async () => {
    const { agent: a, storageService, pruner } = await setUp(7)
    const far = Date.now() + 1000 * DAY
    const gone: BaseRecordAny[] = [
      await credential(a, DidCommCredentialState.Done),
      await credential(a, DidCommCredentialState.Abandoned),
      await credential(a, DidCommCredentialState.Declined),
    ]
    const finishedProof = await proof(a, DidCommProofState.Done)
    const finishedFlow = await flow(a, finishedProof.id, false)
    gone.push(finishedProof, finishedFlow, await proof(a, DidCommProofState.Abandoned))
    gone.push(await sent(a, 'viewed'), await shortUrl(a, Date.now() - 1))
    const owingProof = await proof(a, DidCommProofState.Done)
    const kept: BaseRecordAny[] = [
      await credential(a, DidCommCredentialState.OfferSent),
      await proof(a, DidCommProofState.RequestSent),
      owingProof,
      await flow(a, owingProof.id, true),
      await sent(a, 'delivered'),
      await sent(a, 'errored'),
      await shortUrl(a, far),
    ]
    const connection = new DidCommConnectionRecord({ state: DidCommDidExchangeState.Completed, role: DidCommDidExchangeRole.Responder })
    kept.push(await saved(a, a.dependencyManager.resolve(DidCommConnectionRepository), connection))
    await nextMillisecond()
    const mark = Date.now()
    await nextMillisecond()
    kept.push(await credential(a, DidCommCredentialState.Done), await sent(a, 'viewed'))

    // RECORDS_RETENTION_DAYS=7 at mark + 7 days: what was changed before the mark is old enough
    const report = await pruner.run(mark + 7 * DAY)
    expect(report.records).toEqual({ credentialExchanges: 3, presentations: 2, sentMessages: 1, shortUrls: 1 })
    for (const record of gone) expect(await stored(storageService, a, record), `${record.type} ${record.id}`).toBe(false)
    for (const record of kept) expect(await stored(storageService, a, record), `${record.type} ${record.id}`).toBe(true)
    expect(await a.modules.didcomm.credentials.findById(gone[0]!.id)).toBeNull()
    expect(await a.modules.didcomm.proofs.findById(finishedProof.id)).toBeNull()
  })

  it('keeps every record with RECORDS_RETENTION_DAYS=0', async () => {
    const { agent: a, storageService, pruner } = await setUp(0)
    const records = [await credential(a, DidCommCredentialState.Done), await sent(a, 'viewed'), await shortUrl(a, Date.now() - 1)]
    expect((await pruner.run(Date.now() + 1000 * DAY)).records).toBeUndefined()
    for (const record of records) expect(await stored(storageService, a, record)).toBe(true)
  })

  it('pages past records it keeps: expired short URLs after more than a batch of live ones all go', async () => {
    const { agent: a, storageService, pruner } = await setUp(1)
    const far = Date.now() + 1000 * DAY
    const save = (count: number, expiresAt: number) => Promise.all(Array.from({ length: count }, () => shortUrl(a, expiresAt)))
    await save(510, far) // more than a batch (500) that is not final, oldest first
    await save(510, Date.now() - 1)
    expect((await pruner.run(Date.now() + 2 * DAY)).records?.shortUrls).toBe(510)
    const left = await storageService.findByQuery(a.context, ShortUrlRecord, {})
    expect(left).toHaveLength(510)
    expect(left.every((record) => Date.parse(record.expiresAt) === far)).toBe(true)
  })
})
