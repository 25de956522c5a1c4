/**
 * Credo's `StorageService` on the agent's drizzle database, in place of Askar.
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
import { and, eq, sql } from 'drizzle-orm'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import type { Database } from '../../database/index.ts'
import { constraintViolation, runAtomically, type Statements } from './dialect.ts'
import { selectRecords, type RecordScope } from './query.ts'
import { credoRecords, credoRecordTags, schemaStatements } from './schema.ts'
import { recordTagEntries, storedTags } from './tags.ts'

interface RecordKey extends RecordScope {
  id: string
}

interface RecordRow {
  value: Record<string, unknown>
  tags: TagsBase
}

function keyOf(agentContext: AgentContext, type: string, id: string): RecordKey {
  return { contextId: agentContext.contextCorrelationId, type, id }
}

function isRecord(key: RecordKey) {
  return and(
    eq(credoRecords.contextId, key.contextId),
    eq(credoRecords.type, key.type),
    eq(credoRecords.id, key.id),
  )
}

function isTagOf(key: RecordKey) {
  return and(
    eq(credoRecordTags.contextId, key.contextId),
    eq(credoRecordTags.type, key.type),
    eq(credoRecordTags.recordId, key.id),
  )
}

function toInstance<T extends BaseRecordAny>(row: RecordRow, recordClass: BaseRecordConstructor<T>): T {
  const record = JsonTransformer.fromJSON(row.value, recordClass)
  record.replaceTags(row.tags)
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
 * Every write is one atomic batch (`dialect.ts`), so a record and its tag rows never disagree.
 * Not implemented: cursor pagination (`supportsCursorPagination` is false) and
 * `updateByIdWithLock` (Credo then reads, calls back and updates; with libsql a lock held
 * across the callback's `await`s would make every other write fail, see `runAtomically`).
 *
 * Register it with `DrizzleStorageModule`, which also seeds the storage version.
 */
export class DrizzleStorageService<T extends BaseRecordAny = BaseRecordAny> implements StorageService<T> {
  public readonly supportsCursorPagination = false

  private constructor(private readonly db: LibSQLDatabase) {}

  /**
   * Creates the tables and indexes if missing (`schemaStatements`) and returns the service.
   *
   * @param database from `openDatabase` (`agent-node/src/database`)
   * @throws the driver's error if the schema cannot be created.
   */
  public static async open(database: Database): Promise<DrizzleStorageService> {
    const { db } = database
    const [first, ...rest] = schemaStatements.map((statement) => db.run(sql.raw(statement)))
    if (first) await runAtomically(db, [first, ...rest])
    return new DrizzleStorageService(db)
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
    try {
      await runAtomically(this.db, [
        this.db.insert(credoRecords).values({
          ...key,
          value: JsonTransformer.toJSON(record),
          tags: storedTags(tags),
          createdAt: record.createdAt,
          updatedAt: record.updatedAt,
        }),
        ...this.insertTags(key, tags),
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
    const notFound = () =>
      new RecordNotFoundError(`record with id ${record.id} not found.`, { recordType: record.type })
    let changed: number[]
    try {
      changed = await runAtomically(this.db, [
        this.db
          .update(credoRecords)
          .set({
            value: JsonTransformer.toJSON(record),
            tags: storedTags(tags),
            createdAt: record.createdAt,
            updatedAt: record.updatedAt,
          })
          .where(isRecord(key)),
        this.db.delete(credoRecordTags).where(isTagOf(key)),
        ...this.insertTags(key, tags),
      ])
    } catch (error) {
      // tag rows of a missing record break the foreign key, which rolls the batch back
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
    const [row] = await this.db
      .select({ value: credoRecords.value, tags: credoRecords.tags })
      .from(credoRecords)
      .where(isRecord(keyOf(agentContext, recordClass.type, id)))
    if (!row) throw new RecordNotFoundError(`record with id ${id} not found.`, { recordType: recordClass.type })
    return toInstance(row, recordClass)
  }

  /** All records of `recordClass.type` in the context, oldest first. */
  public async getAll<R extends T>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>): Promise<R[]> {
    const rows = await selectRecords(this.db, this.scopeOf(agentContext, recordClass))
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
    const rows = await selectRecords(this.db, scope, query as Query<BaseRecordAny>, queryOptions)
    return rows.map((row) => toInstance(row, recordClass))
  }

  private scopeOf(agentContext: AgentContext, recordClass: BaseRecordConstructor<BaseRecordAny>): RecordScope {
    return { contextId: agentContext.contextCorrelationId, type: recordClass.type }
  }

  private insertTags(key: RecordKey, tags: TagsBase): Statements | [] {
    const rows = recordTagEntries(tags).map((entry) => ({
      contextId: key.contextId,
      type: key.type,
      recordId: key.id,
      ...entry,
    }))
    return rows.length === 0 ? [] : [this.db.insert(credoRecordTags).values(rows)]
  }

  private async deleteKey(key: RecordKey): Promise<void> {
    const [deleted] = await runAtomically(this.db, [this.db.delete(credoRecords).where(isRecord(key))])
    if (deleted === 0) throw new RecordNotFoundError(`record with id ${key.id} not found.`, { recordType: key.type })
  }
}
