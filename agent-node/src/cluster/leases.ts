/**
 * Leases in the agent database (`cluster_leases`, `schema.ts`): a named right held by one
 * instance until it expires. Claiming and renewing are one conditional statement, so two
 * instances racing for a lease never both get it:
 *
 *   INSERT … ON CONFLICT (name) DO UPDATE SET holder, expires_at
 *     WHERE cluster_leases.holder = excluded.holder OR cluster_leases.expires_at < now
 *   RETURNING holder
 *
 * The row comes back only when this holder now has the lease (new, renewed, or taken over after
 * it expired). Times are the instances' clocks in epoch milliseconds: hosts must keep their clocks
 * in step (NTP) to well within the lease time.
 */
import { sql, type SQL } from 'drizzle-orm'
import { applySchema, execute, selectRows } from '../database/dialect.ts'
import type { Database } from '../database/index.ts'
import { LEASES_SCHEMA } from './schema.ts'

/** The name of the lease every running instance holds on itself (its liveness). */
export function instanceLeaseName(instanceId: string): string {
  return `instance:${instanceId}`
}

/**
 * A condition true when the instance whose id is in `column` holds no live lease at `now`
 * (epoch ms): it stopped or died, so what it left may be adopted. A NULL id (rows written before
 * instances had ids) counts as dead.
 */
export function instanceGone(column: SQL, now: number): SQL {
  return sql`(${column} IS NULL OR NOT EXISTS (SELECT 1 FROM cluster_leases l
    WHERE l.name = 'instance:' || ${column} AND l.expires_at >= ${now}))`
}

export class LeaseStore {
  private constructor(private readonly database: Database) {}

  /** Creates the table if missing and returns the store. */
  static async open(database: Database): Promise<LeaseStore> {
    await applySchema(database, LEASES_SCHEMA)
    return new LeaseStore(database)
  }

  /**
   * Claims or renews lease `name` for `holder` until `now + ttlMs`.
   * @returns whether `holder` holds it now (false: another holder's lease has not expired).
   */
  async claim(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const rows = await selectRows<{ holder: string }>(
      this.database,
      sql`INSERT INTO cluster_leases (name, holder, expires_at) VALUES (${name}, ${holder}, ${now + ttlMs})
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE cluster_leases.holder = excluded.holder OR cluster_leases.expires_at < ${now}
      RETURNING holder`,
    )
    return rows[0]?.holder === holder
  }

  /** Gives lease `name` up, if `holder` holds it (others may take it at once). */
  async release(name: string, holder: string): Promise<void> {
    await execute(this.database, sql`DELETE FROM cluster_leases WHERE name = ${name} AND holder = ${holder}`)
  }

  /** Gives up every lease of `holder`. */
  async releaseAll(holder: string): Promise<void> {
    await execute(this.database, sql`DELETE FROM cluster_leases WHERE holder = ${holder}`)
  }

  /** Drops every lease not held by `holder`: only for a database no other process can use (SQLite). */
  async dropOthers(holder: string): Promise<number> {
    return execute(this.database, sql`DELETE FROM cluster_leases WHERE holder <> ${holder}`)
  }

  /** The holder of lease `name` while it is live at `now`, else undefined. */
  async holder(name: string, now = Date.now()): Promise<string | undefined> {
    const [row] = await selectRows<{ holder: string }>(
      this.database,
      sql`SELECT holder FROM cluster_leases WHERE name = ${name} AND expires_at >= ${now}`,
    )
    return row?.holder
  }
}
