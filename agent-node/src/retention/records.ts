/**
 * Records in a final state, for the retention pruner (`pruner.ts`, docs/operations.md
 * "Retention"): each kind says which of its records can no longer change and how one is deleted,
 * always through Credo's APIs or repositories, so a pruned record answers 404 like one deleted by
 * hand. Nothing else is ever deleted: not connections (live data), not a record that may still
 * move, not the credentials a holder-side exchange stored.
 *
 * - credential exchanges `done`, `declined` or `abandoned`, with their DIDComm messages
 *   (`GET /v1/credential-exchanges`);
 * - proof exchanges `done`, `declined` or `abandoned`, with their DIDComm messages and Parley's
 *   presentation flow record (`deletePresentation`), unless the flow still holds callback reports
 *   not handed to the outbox;
 * - sent messages `viewed` (the last delivery state: `delivered` and `errored` may still move on
 *   a late receipt);
 * - short URLs past their `expiresAt` (they already answer 404).
 *
 * Out-of-band records stay: connections name theirs (`outOfBandId`) and are found through them.
 */
import type { BaseRecord, BaseRecordConstructor, Query } from '@credo-ts/core'
import { DidCommCredentialExchangeRecord, DidCommCredentialState, DidCommProofExchangeRecord, DidCommProofState } from '@credo-ts/didcomm'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { SentMessageRecord } from '../messaging/SentMessageRecord.ts'
import { PresentationFlowRecord } from '../identity-proofs/PresentationFlowRecord.ts'
import { deletePresentation } from '../identity-proofs/presentations.ts'
import { ShortUrlRecord } from '../short-urls/ShortUrlRecord.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import { recordRepository } from '../wallet/storage/repository.ts'

/** What one batch of one kind did: records read (final or not) and records deleted. */
export interface RecordBatch {
  read: number
  deleted: number
}

/** How many records of each kind one run deleted. */
export interface RecordsPruned {
  credentialExchanges: number
  presentations: number
  sentMessages: number
  shortUrls: number
}

/** One kind of record: which are final and how one goes. */
interface RecordKind<R extends BaseRecord> {
  recordClass: BaseRecordConstructor<R>
  /** The records that may be final (by their tags). */
  query: Query<R>
  /** Whether `record` is final at `now` (ms since the epoch), beyond what `query` says. */
  isFinal?: (record: R, now: number) => Promise<boolean> | boolean
  delete: (record: R) => Promise<void>
}

const anyState = <S extends string>(states: S[]) => states.map((state) => ({ state }))

export class TerminalRecords {
  private readonly kinds: { [K in keyof RecordsPruned]: RecordKind<BaseRecord> }

  constructor(
    private readonly agent: DidcommAgent,
    private readonly storage: DrizzleStorageService,
  ) {
    const { credentials } = agent.modules.didcomm
    const flows = () => recordRepository(agent.context, PresentationFlowRecord)
    this.kinds = {
      credentialExchanges: kind({
        recordClass: DidCommCredentialExchangeRecord,
        query: { $or: anyState([DidCommCredentialState.Done, DidCommCredentialState.Declined, DidCommCredentialState.Abandoned]) },
        delete: (record) =>
          credentials.deleteById(record.id, { deleteAssociatedCredentials: false, deleteAssociatedDidCommMessages: true }),
      }),
      presentations: kind({
        recordClass: DidCommProofExchangeRecord,
        query: { $or: anyState([DidCommProofState.Done, DidCommProofState.Declined, DidCommProofState.Abandoned]) },
        isFinal: async (record) => ((await flows().findById(agent.context, record.id))?.pendingCallbacks?.length ?? 0) === 0,
        delete: async (record) => {
          await deletePresentation(agent, record.id)
        },
      }),
      sentMessages: kind({
        recordClass: SentMessageRecord,
        query: { state: 'viewed' },
        delete: (record) => recordRepository(agent.context, SentMessageRecord).delete(agent.context, record),
      }),
      shortUrls: kind({
        recordClass: ShortUrlRecord,
        query: {},
        isFinal: (record, now) => Date.parse(record.expiresAt) <= now,
        delete: (record) => recordRepository(agent.context, ShortUrlRecord).delete(agent.context, record),
      }),
    }
  }

  /** The kinds, in the order a run prunes them. */
  get names(): (keyof RecordsPruned)[] {
    return Object.keys(this.kinds) as (keyof RecordsPruned)[]
  }

  /**
   * Deletes the final records of `name` last changed before `cutoff` among the `limit` oldest
   * such records past the first `skip` (which earlier batches read and kept).
   * @param now ms since the epoch, for the kinds whose finality depends on time (short URLs)
   * @throws the storage's or Credo's error; records deleted before it stay deleted.
   */
  async pruneBatch(name: keyof RecordsPruned, cutoff: number, now: number, limit: number, skip: number): Promise<RecordBatch> {
    const { recordClass, query, isFinal, delete: remove } = this.kinds[name]
    const records = await this.storage.findUpdatedBefore(this.agent.context, recordClass, query, new Date(cutoff), {
      limit,
      offset: skip,
    })
    let deleted = 0
    for (const record of records) {
      if (isFinal && !(await isFinal(record, now))) continue
      await remove(record)
      deleted++
    }
    return { read: records.length, deleted }
  }
}

/** `spec` typed for its own record class, then kept beside the others. */
function kind<R extends BaseRecord>(spec: RecordKind<R>): RecordKind<BaseRecord> {
  return spec as unknown as RecordKind<BaseRecord>
}
