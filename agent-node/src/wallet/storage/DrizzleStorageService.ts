/**
 * Credo's `StorageService` on the agent database (SQLite or PostgreSQL, through drizzle), in
 * place of Askar.
 */
import {
  CredoError,
  JsonTransformer,
  RecordDuplicateError,
  RecordNotFoundError,
  type AgentContext,
  type BaseRecordAny,
  type BaseRecordConstructor,
  type Query,
  type QueryOptions,
  type StorageService,
  type TagsBase,
} from '@credo-ts/core'
import { setImmediate } from 'node:timers/promises'
import { backOff } from 'exponential-backoff'
import { sql, type SQL } from 'drizzle-orm'
import { applySchema, constraintViolation, execute, runAtomically, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import type { SealingKey } from '../kms/index.ts'
import type { PageRequest } from '../../database/pages.ts'
import { selectRecords, type RecordScope, type RecordSelection, type StoredRecordRow } from './query.ts'
import { CLEAR_VALUE, CREDO_SCHEMA, SEALED_PREFIX } from './schema.ts'
import { recordTagEntries, storedTags } from './tags.ts'

/**
 * Records turned into instances per event-loop turn when a query returns more: opening a sealed
 * value and Credo's class-transformer and class-validator take about 80 µs a record, so listing
 * 10,000 connections held the event loop for 0.65-0.9 s (DIDComm delivery and every admin call
 * stalled meanwhile); in turns of 100, each holds it about 8 ms.
 */
export const RECORDS_PER_TURN = 100

interface RecordKey extends RecordScope {
  id: string
}

function keyOf(agentContext: AgentContext, type: string, id: string): RecordKey {
  return { contextId: agentContext.contextCorrelationId, type, id }
}

function isRecord(key: RecordKey): SQL {
  return sql`context_id = ${key.contextId} AND type = ${key.type} AND id = ${key.id}`
}

/** A record from its stored JSON and its tags' JSON (`credo_records.tags`). */
function fromStored<R extends BaseRecordAny>(json: string, tags: string, recordClass: BaseRecordConstructor<R>): R {
  const record = JsonTransformer.fromJSON(JSON.parse(json), recordClass)
  record.replaceTags(JSON.parse(tags) as TagsBase)
  return record
}

function notFound(key: RecordKey): RecordNotFoundError {
  return new RecordNotFoundError(`record with id ${key.id} not found.`, { recordType: key.type })
}

/**
 * The rows of `credo_record_tags` for the record's tags, as a VALUES list
 * (`(context_id, type, record_id, name, kind, value), …`); undefined without tags.
 * @throws {CredoError} as `tagEntries`.
 */
function tagValues(key: RecordKey, tags: TagsBase): SQL | undefined {
  const rows = recordTagEntries(tags).map(
    (entry) => sql`(${key.contextId}, ${key.type}, ${key.id}, ${entry.name}, ${entry.kind}, ${entry.value})`,
  )
  return rows.length === 0 ? undefined : sql.join(rows, sql`, `)
}

/** How many times `updateByIdWithLock` reads and writes before it gives up on a record other writers keep changing. */
export const LOCKED_UPDATE_ATTEMPTS = 10

/**
 * `updateByIdWithLock` found the record changed by another writer between its read and its write
 * on each of its attempts (within `updateByIdWithLock`, also the signal to try again).
 */
export class RecordChangedError extends CredoError {
  constructor(key: RecordKey, attempts: number) {
    super(`record with id ${key.id} (type ${key.type}) was changed by another writer during each of ${attempts} attempts to update it`)
  }
}

/** The associated data of a record's sealed value: it cannot be moved to another row. */
function recordAad(key: RecordKey): Buffer {
  return Buffer.from(`credo-record\n${key.contextId}\n${key.type}\n${key.id}`, 'utf8')
}

/** `credo_records.value` of `json`: `sealed:v1:<iv>:<ciphertext>`, both base64url. */
function sealValue(sealing: SealingKey, key: RecordKey, json: string): string {
  const plaintext = Buffer.from(json, 'utf8')
  const { iv, ciphertext } = sealing.seal(plaintext, recordAad(key))
  plaintext.fill(0)
  return `${SEALED_PREFIX}${iv}:${ciphertext}`
}

/** The JSON of a stored value (sealed, or clear from before sealing). @throws SealedValueError */
function openValue(sealing: SealingKey, key: RecordKey, value: string): string {
  if (!value.startsWith(SEALED_PREFIX)) return value
  const [iv = '', ciphertext = ''] = value.slice(SEALED_PREFIX.length).split(':')
  const plaintext = sealing.open({ iv, ciphertext }, recordAad(key))
  const json = plaintext.toString('utf8')
  plaintext.fill(0)
  return json
}

/**
 * Stores Credo records in `credo_records` and indexes their tags in `credo_record_tags`
 * (`schema.ts`), partitioned by `agentContext.contextCorrelationId` and record type. Implements
 * `StorageService` of `@credo-ts/core` 0.6.3 (`build/storage/StorageService.d.mts`) with the
 * behaviour of Credo's `AskarStorageService` (`packages/askar/src/storage`): records are
 * serialized with `JsonTransformer`, `save` and `update` set `record.updatedAt`, a loaded record
 * gets back the tags it was stored with (`replaceTags`). Tag queries: see `query.ts`. The
 * reading methods are generic over the record class (`getById(context, DidRecord, id)` is a
 * `Promise<DidRecord>`).
 *
 * Record values are sealed at rest (AES-256-GCM with the records key of `deriveWalletKeys`,
 * `agent-node/src/wallet/kms/WalletKeys.ts`, AAD = context, type and id): AnonCreds private
 * parts (credential-definition private keys, key-correctness proofs, link secrets, revocation
 * private parts) and every other record never reach the database in clear. Tags stay clear, as
 * queries need them: no private value is ever a tag. Values written in clear by an older version
 * are sealed when the store is opened.
 *
 * Every write is one transaction (`runAtomically` in `agent-node/src/database/dialect.ts`), so a
 * record and its tag rows never disagree, on either dialect and with any number of concurrent
 * writers. `updateByIdWithLock` locks optimistically: it writes only if the record is still as it
 * read it, and reads and calls back again otherwise (a transaction held across the callback's
 * `await`s would, on SQLite's one connection, take in every other statement of the process, see
 * `runAtomically`). Not implemented: cursor pagination (`supportsCursorPagination` is false).
 *
 * Register it with `DrizzleStorageModule`, which also seeds the storage version.
 */
export class DrizzleStorageService<T extends BaseRecordAny = BaseRecordAny> implements StorageService<T> {
  public readonly supportsCursorPagination = false

  private constructor(
    private readonly database: Database,
    private readonly sealing: SealingKey,
  ) {}

  /**
   * Creates the tables and indexes if missing (`CREDO_SCHEMA`), seals values still stored in
   * clear, and returns the service.
   *
   * @param database from `openDatabase` (`agent-node/src/database`), SQLite or PostgreSQL
   * @param sealing `deriveWalletKeys(database, walletKey).records`
   * @throws the driver's error if the schema cannot be created.
   */
  public static async open(database: Database, sealing: SealingKey): Promise<DrizzleStorageService> {
    await applySchema(database, CREDO_SCHEMA)
    const clear = await selectRows<{ contextId: string; type: string; id: string; value: string }>(
      database,
      sql`SELECT context_id AS "contextId", type, id, value FROM credo_records WHERE ${sql.raw(CLEAR_VALUE)}`,
    )
    for (const row of clear) {
      await execute(
        database,
        sql`UPDATE credo_records SET value = ${sealValue(sealing, row, row.value)}
        WHERE ${isRecord(row)} AND value = ${row.value}`,
      )
    }
    return new DrizzleStorageService(database, sealing)
  }

  /** The record's JSON, as `credo_records.value` holds it once sealed. */
  private json(record: BaseRecordAny): string {
    return JSON.stringify(JsonTransformer.toJSON(record))
  }

  private toInstance<R extends BaseRecordAny>(scope: RecordScope, row: StoredRecordRow, recordClass: BaseRecordConstructor<R>): R {
    return fromStored(openValue(this.sealing, { ...scope, id: row.id }, row.value), row.tags, recordClass)
  }

  /**
   * Inserts the record and its tag rows. Sets `createdAt` if missing and `updatedAt` to now.
   *
   * @throws {RecordDuplicateError} if a record of this type and id exists in the context.
   * @throws {CredoError} if a tag value is not a Credo `TagValue`.
   */
  public async save(agentContext: AgentContext, record: T): Promise<void> {
    record.createdAt ??= new Date()
    record.updatedAt = new Date()
    const key = keyOf(agentContext, record.type, record.id)
    const tags = record.getTags()
    const tagRows = tagValues(key, tags)
    try {
      await runAtomically(this.database, [
        sql`INSERT INTO credo_records (context_id, type, id, value, tags, created_at, updated_at)
          VALUES (${key.contextId}, ${key.type}, ${key.id}, ${sealValue(this.sealing, key, this.json(record))},
            ${JSON.stringify(storedTags(tags))}, ${record.createdAt.getTime()}, ${record.updatedAt.getTime()})`,
        ...(tagRows ? [sql`INSERT INTO credo_record_tags (context_id, type, record_id, name, kind, value) VALUES ${tagRows}`] : []),
      ])
    } catch (error) {
      if (constraintViolation(error) === 'unique') {
        throw new RecordDuplicateError(`Record with id ${record.id} already exists`, { recordType: record.type })
      }
      throw error
    }
  }

  /**
   * Replaces the stored record and all its tag rows in one transaction. Sets `updatedAt` to now.
   *
   * @throws {RecordNotFoundError} if no record of this type and id exists in the context.
   * @throws {CredoError} if a tag value is not a Credo `TagValue`.
   */
  public async update(agentContext: AgentContext, record: T): Promise<void> {
    const key = keyOf(agentContext, record.type, record.id)
    if (!(await this.replace(key, record))) throw notFound(key)
  }

  /**
   * Reads the record of `recordClass.type` with this id, hands it to `updateCallback`, and stores
   * the record the callback returns, unless another writer (another connection, or another
   * agent-node on the same PostgreSQL database) changed the record in between: then it reads again
   * and calls `updateCallback` again with the fresh record, up to `LOCKED_UPDATE_ATTEMPTS` times
   * in all, after a random wait of up to 1, 2, 4 … 50 ms.
   * Optimistic locking, Credo's `StorageService.updateByIdWithLock` contract without holding a
   * lock: no transaction spans the callback's `await`s. The stored value, sealed with a fresh
   * IV at every write, is the version compared. A callback that changes nothing (same JSON, same
   * tags) writes nothing, and `updatedAt` stays.
   *
   * @param updateCallback may run more than once; keep its side effects out, or idempotent.
   * @returns the record as the callback last returned it.
   * @throws {RecordNotFoundError} if there is no such record (or it was deleted meanwhile).
   * @throws {RecordChangedError} if it changed under every attempt.
   * @throws what `updateCallback` throws; nothing is then written.
   */
  public async updateByIdWithLock<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    id: string,
    updateCallback: (record: R) => Promise<R>,
  ): Promise<R> {
    const key = keyOf(agentContext, recordClass.type, id)
    const attempt = async () => {
      const row = await this.row(key)
      const stored = openValue(this.sealing, key, row.value)
      const record = await updateCallback(fromStored(stored, row.tags, recordClass))
      if (this.json(record) === stored && JSON.stringify(storedTags(record.getTags())) === row.tags) return record
      if (await this.replace(key, record, row.value)) return record
      throw new RecordChangedError(key, LOCKED_UPDATE_ATTEMPTS)
    }
    // Two writers that keep colliding take turns after a random wait (full jitter), rather than
    // colliding again in step.
    return backOff(attempt, {
      numOfAttempts: LOCKED_UPDATE_ATTEMPTS,
      startingDelay: 1,
      maxDelay: 50,
      jitter: 'full',
      retry: (error) => error instanceof RecordChangedError,
    })
  }

  /** `updateByIdWithLock` is implemented (optimistically), on every agent context. */
  public supportsLocking(): boolean {
    return true
  }

  /**
   * Replaces the stored value and the tag rows of `key` by the record's, in one transaction,
   * setting `record.updatedAt` to now; with `expectedValue`, only if the stored value still is
   * that one (what was read). The tag statements run only once the new value is
   * in place (it is unique: a fresh IV), so a refused update leaves the tags as they were.
   *
   * @returns whether it was replaced: false if there is no such record, or (with `expectedValue`)
   *   another writer changed it.
   * @throws {CredoError} if a tag value is not a Credo `TagValue`.
   */
  private async replace(key: RecordKey, record: BaseRecordAny, expectedValue?: string): Promise<boolean> {
    record.updatedAt = new Date()
    const value = sealValue(this.sealing, key, this.json(record))
    const tags = record.getTags()
    const replaced = sql`EXISTS (SELECT 1 FROM credo_records WHERE ${isRecord(key)} AND value = ${value})`
    const tagRows = tagValues(key, tags)
    const [changed] = await runAtomically(this.database, [
      sql`UPDATE credo_records SET value = ${value}, tags = ${JSON.stringify(storedTags(tags))},
        created_at = ${record.createdAt.getTime()}, updated_at = ${record.updatedAt.getTime()}
        WHERE ${isRecord(key)}${expectedValue === undefined ? sql`` : sql` AND value = ${expectedValue}`}`,
      sql`DELETE FROM credo_record_tags
        WHERE context_id = ${key.contextId} AND type = ${key.type} AND record_id = ${key.id} AND ${replaced}`,
      ...(tagRows
        ? [
            sql`INSERT INTO credo_record_tags (context_id, type, record_id, name, kind, value)
            SELECT * FROM (VALUES ${tagRows}) AS tag_rows WHERE ${replaced}`,
          ]
        : []),
    ])
    return changed !== 0
  }

  /**
   * Deletes the record; its tag rows go with it.
   *
   * @throws {RecordNotFoundError} if no record of this type and id exists in the context.
   */
  public async delete(agentContext: AgentContext, record: T): Promise<void> {
    await this.deleteKey(keyOf(agentContext, record.type, record.id))
  }

  /**
   * Deletes the record of `recordClass.type` with this id; its tag rows go with it.
   *
   * @throws {RecordNotFoundError} if there is none in the context.
   */
  public async deleteById<R extends T>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>, id: string): Promise<void> {
    await this.deleteKey(keyOf(agentContext, recordClass.type, id))
  }

  /**
   * Loads the record of `recordClass.type` with this id as a `recordClass` instance.
   *
   * @throws {RecordNotFoundError} if there is none in the context.
   * @throws {ClassValidationError} if the stored JSON does not validate as `recordClass`.
   */
  public async getById<R extends T>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>, id: string): Promise<R> {
    const key = keyOf(agentContext, recordClass.type, id)
    return this.toInstance(key, await this.row(key), recordClass)
  }

  /** The stored row of `key`. @throws {RecordNotFoundError} if there is none. */
  private async row(key: RecordKey): Promise<StoredRecordRow> {
    const [row] = await selectRows<StoredRecordRow>(this.database, sql`SELECT id, value, tags FROM credo_records WHERE ${isRecord(key)}`)
    if (!row) throw notFound(key)
    return row
  }

  /** All records of `recordClass.type` in the context, oldest first. */
  public async getAll<R extends T>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>): Promise<R[]> {
    const scope = this.scopeOf(agentContext, recordClass)
    return this.toInstances(scope, await selectRows<StoredRecordRow>(this.database, selectRecords(scope)), recordClass)
  }

  /**
   * The records of `recordClass.type` in the context that match `query` (`query.ts`), oldest
   * first, paged by `queryOptions.limit` / `offset`.
   *
   * @throws {CredoError} if `queryOptions.cursor` is set, or a query value is not a `TagValue`.
   */
  public async findByQuery<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    query: Query<R>,
    queryOptions?: QueryOptions,
  ): Promise<R[]> {
    return this.select(agentContext, recordClass, query, queryOptions)
  }

  /**
   * Like `findByQuery`, only records last changed (`updatedAt`) before `before`, oldest created
   * first: what the retention pruner (`agent-node/src/retention/records.ts`) looks at. Beyond
   * Credo's `StorageService`, which has no query on times.
   *
   * @throws {CredoError} as `findByQuery`.
   */
  public async findUpdatedBefore<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    query: Query<R>,
    before: Date,
    queryOptions?: QueryOptions,
  ): Promise<R[]> {
    return this.select(agentContext, recordClass, query, queryOptions, { updatedBefore: before.getTime() })
  }

  /**
   * Like `findByQuery`, only records last changed (`updatedAt`) after `after`, oldest created
   * first: what start-up event recovery looks at (`agent-node/src/events/recovery.ts`), through
   * the `credo_records_updated` index rather than every record. Beyond Credo's `StorageService`.
   *
   * @throws {CredoError} as `findByQuery`.
   */
  public async findUpdatedAfter<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    query: Query<R>,
    after: Date,
  ): Promise<R[]> {
    return this.select(agentContext, recordClass, query, {}, { updatedAfter: after.getTime() })
  }

  /**
   * One page of the records of `recordClass.type` in the context that match `query`, newest
   * created first (`created_at, id` descending): at most `limit` (negative: no bound), those after
   * `after` in that order when given (keyset paging: a page's last record is the next page's
   * `after`, and records saved meanwhile neither shift nor repeat the pages). Beyond Credo's
   * `StorageService`, whose cursor is not implemented here.
   *
   * @throws {CredoError} as `findByQuery`.
   */
  public async findNewestFirst<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    query: Query<R>,
    { limit, after }: PageRequest,
  ): Promise<R[]> {
    return this.select(agentContext, recordClass, query, { limit }, { newestFirst: { after } })
  }

  private async select<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    query: Query<R>,
    queryOptions?: QueryOptions,
    selection?: RecordSelection,
  ): Promise<R[]> {
    const scope = this.scopeOf(agentContext, recordClass)
    const select = selectRecords(scope, query as Query<BaseRecordAny>, queryOptions, selection)
    return this.toInstances(scope, await selectRows<StoredRecordRow>(this.database, select), recordClass)
  }

  /**
   * `toInstance` of each row, in order, `RECORDS_PER_TURN` per event-loop turn: the rows were
   * read in one statement (one snapshot), and other work runs between the turns.
   */
  private async toInstances<R extends BaseRecordAny>(
    scope: RecordScope,
    rows: StoredRecordRow[],
    recordClass: BaseRecordConstructor<R>,
  ): Promise<R[]> {
    const records: R[] = []
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % RECORDS_PER_TURN === 0) await setImmediate()
      records.push(this.toInstance(scope, rows[i]!, recordClass))
    }
    return records
  }

  private scopeOf(agentContext: AgentContext, recordClass: BaseRecordConstructor<BaseRecordAny>): RecordScope {
    return { contextId: agentContext.contextCorrelationId, type: recordClass.type }
  }

  private async deleteKey(key: RecordKey): Promise<void> {
    const deleted = await execute(this.database, sql`DELETE FROM credo_records WHERE ${isRecord(key)}`)
    if (deleted === 0) throw notFound(key)
  }
}
