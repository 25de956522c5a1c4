/**
 * Credo's `StorageService` on the agent database (SQLite or PostgreSQL, through drizzle), in
 * place of Askar.
 */
import {
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
import { sql, type SQL } from 'drizzle-orm'
import { applySchema, constraintViolation, execute, runAtomically, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { selectRecords, type RecordScope, type StoredRecordRow } from './query.ts'
import { CREDO_SCHEMA_SQL } from './schema.ts'
import { recordTagEntries, storedTags } from './tags.ts'

interface RecordKey extends RecordScope {
  id: string
}

function keyOf(agentContext: AgentContext, type: string, id: string): RecordKey {
  return { contextId: agentContext.contextCorrelationId, type, id }
}

function isRecord(key: RecordKey): SQL {
  return sql`context_id = ${key.contextId} AND type = ${key.type} AND id = ${key.id}`
}

/** The record's JSON as stored in `credo_records.value`. */
function serialize(record: BaseRecordAny): string {
  return JSON.stringify(JsonTransformer.toJSON(record))
}

function toInstance<T extends BaseRecordAny>(row: StoredRecordRow, recordClass: BaseRecordConstructor<T>): T {
  const record = JsonTransformer.fromJSON(JSON.parse(row.value), recordClass)
  record.replaceTags(JSON.parse(row.tags) as TagsBase)
  return record
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
 * Every write is one transaction (`runAtomically` in `agent-node/src/database/dialect.ts`), so a
 * record and its tag rows never disagree, on either dialect and with any number of concurrent
 * writers. Not implemented: cursor pagination (`supportsCursorPagination` is false) and
 * `updateByIdWithLock` (Credo then reads, calls back and updates; with libsql a lock held
 * across the callback's `await`s would make every other write fail, see `runAtomically`).
 *
 * Register it with `DrizzleStorageModule`, which also seeds the storage version.
 */
export class DrizzleStorageService<T extends BaseRecordAny = BaseRecordAny> implements StorageService<T> {
  public readonly supportsCursorPagination = false

  private constructor(private readonly database: Database) {}

  /**
   * Creates the tables and indexes if missing (`CREDO_SCHEMA_SQL`) and returns the service.
   *
   * @param database from `openDatabase` (`agent-node/src/database`), SQLite or PostgreSQL
   * @throws the driver's error if the schema cannot be created.
   */
  public static async open(database: Database): Promise<DrizzleStorageService> {
    await applySchema(database, CREDO_SCHEMA_SQL)
    return new DrizzleStorageService(database)
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
    const tagRows = this.insertTags(key, tags)
    try {
      await runAtomically(this.database, [
        sql`INSERT INTO credo_records (context_id, type, id, value, tags, created_at, updated_at)
          VALUES (${key.contextId}, ${key.type}, ${key.id}, ${serialize(record)}, ${JSON.stringify(storedTags(tags))},
            ${record.createdAt.getTime()}, ${record.updatedAt.getTime()})`,
        ...tagRows,
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
    record.updatedAt = new Date()
    const key = keyOf(agentContext, record.type, record.id)
    const tags = record.getTags()
    const tagRows = this.insertTags(key, tags)
    const notFound = () =>
      new RecordNotFoundError(`record with id ${record.id} not found.`, { recordType: record.type })
    let changed: number[]
    try {
      changed = await runAtomically(this.database, [
        sql`UPDATE credo_records SET value = ${serialize(record)}, tags = ${JSON.stringify(storedTags(tags))},
          created_at = ${record.createdAt.getTime()}, updated_at = ${record.updatedAt.getTime()}
          WHERE ${isRecord(key)}`,
        sql`DELETE FROM credo_record_tags
          WHERE context_id = ${key.contextId} AND type = ${key.type} AND record_id = ${key.id}`,
        ...tagRows,
      ])
    } catch (error) {
      // tag rows of a missing record break the foreign key, which rolls the transaction back
      if (constraintViolation(error) === 'foreign-key') throw notFound()
      throw error
    }
    if (changed[0] === 0) throw notFound()
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
  public async deleteById<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    id: string,
  ): Promise<void> {
    await this.deleteKey(keyOf(agentContext, recordClass.type, id))
  }

  /**
   * Loads the record of `recordClass.type` with this id as a `recordClass` instance.
   *
   * @throws {RecordNotFoundError} if there is none in the context.
   * @throws {ClassValidationError} if the stored JSON does not validate as `recordClass`.
   */
  public async getById<R extends T>(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<R>,
    id: string,
  ): Promise<R> {
    const [row] = await selectRows<StoredRecordRow>(
      this.database,
      sql`SELECT value, tags FROM credo_records WHERE ${isRecord(keyOf(agentContext, recordClass.type, id))}`,
    )
    if (!row) throw new RecordNotFoundError(`record with id ${id} not found.`, { recordType: recordClass.type })
    return toInstance(row, recordClass)
  }

  /** All records of `recordClass.type` in the context, oldest first. */
  public async getAll<R extends T>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>): Promise<R[]> {
    const rows = await selectRows<StoredRecordRow>(this.database, selectRecords(this.scopeOf(agentContext, recordClass)))
    return rows.map((row) => toInstance(row, recordClass))
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
    const scope = this.scopeOf(agentContext, recordClass)
    const select = selectRecords(scope, query as Query<BaseRecordAny>, queryOptions)
    const rows = await selectRows<StoredRecordRow>(this.database, select)
    return rows.map((row) => toInstance(row, recordClass))
  }

  private scopeOf(agentContext: AgentContext, recordClass: BaseRecordConstructor<BaseRecordAny>): RecordScope {
    return { contextId: agentContext.contextCorrelationId, type: recordClass.type }
  }

  /** The INSERT of the record's tag rows (none without tags). @throws {CredoError} as `tagEntries`. */
  private insertTags(key: RecordKey, tags: TagsBase): SQL[] {
    const rows = recordTagEntries(tags).map(
      (entry) => sql`(${key.contextId}, ${key.type}, ${key.id}, ${entry.name}, ${entry.kind}, ${entry.value})`,
    )
    if (rows.length === 0) return []
    return [sql`INSERT INTO credo_record_tags (context_id, type, record_id, name, kind, value) VALUES ${sql.join(rows, sql`, `)}`]
  }

  private async deleteKey(key: RecordKey): Promise<void> {
    const deleted = await execute(this.database, sql`DELETE FROM credo_records WHERE ${isRecord(key)}`)
    if (deleted === 0) throw new RecordNotFoundError(`record with id ${key.id} not found.`, { recordType: key.type })
  }
}
