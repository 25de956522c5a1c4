/**
 * The few things the Credo record store does differently per SQL dialect, all SQLite
 * (`@libsql/client`) for now. Everything else (`query.ts`, the storage service) is SQL that
 * PostgreSQL also speaks; a `pg` dialect adds its own versions of these two and of the DDL
 * in `schema.ts`.
 */
import { LibsqlError, type ResultSet } from '@libsql/client'
import type { BatchItem } from 'drizzle-orm/batch'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'

/** The statements of one atomic write. */
export type Statements = readonly [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]

/**
 * Runs the statements as one transaction and returns how many rows each one changed.
 *
 * SQLite: a libsql batch, which runs on one connection without yielding to the event loop.
 * An interactive transaction would hold a connection across `await`s, and another write in
 * that window fails (`SQLITE_BUSY`, or `TRANSACTION_ACTIVE` on `:memory:`, which has a single
 * connection). PostgreSQL (later): `db.transaction`.
 *
 * @throws the driver's error if a statement fails; nothing is then written.
 */
export async function runAtomically(db: LibSQLDatabase, statements: Statements): Promise<number[]> {
  const results = (await db.batch(statements)) as readonly ResultSet[]
  return results.map((result) => result.rowsAffected)
}

/** Which constraint a failed write broke, as far as the store cares. */
export type ConstraintViolation = 'unique' | 'foreign-key'

const violationsBySqliteCode: Record<string, ConstraintViolation> = {
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
}

/**
 * Classifies a write error by the SQLite extended result code of a `LibsqlError` anywhere in
 * its `cause` chain (drizzle wraps driver errors in `DrizzleQueryError`). PostgreSQL (later):
 * SQLSTATE `23505` / `23503`.
 *
 * @returns the violation, or `undefined` for any other error.
 */
export function constraintViolation(error: unknown): ConstraintViolation | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof LibsqlError && cause.extendedCode !== undefined) {
      return violationsBySqliteCode[cause.extendedCode]
    }
  }
  return undefined
}
