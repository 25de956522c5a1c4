/**
 * Queries of the `event_subscriptions` table (`schema.ts`), in the outbox store's style: one
 * module, statements written once with drizzle's `sql` template and run on SQLite or PostgreSQL
 * through `agent-node/src/database/dialect.ts`.
 */
import { sql } from 'drizzle-orm'
import { applySchema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import type { Subscription } from './model.ts'
import { deliveryKindOf } from './model.ts'
import { SUBSCRIPTIONS_SCHEMA } from './schema.ts'

interface Row extends Record<string, unknown> {
  id: string
  url: string
  topics: string | null
  connection_id: string | null
  /** BIGINT: a string on PostgreSQL. */
  created_at: number | string
}

const COLUMNS = sql.raw('id, url, topics, connection_id, created_at')

function toSubscription(row: Row): Subscription {
  return {
    id: row.id,
    url: row.url,
    delivery: deliveryKindOf(row.url),
    topics: row.topics === null ? null : (JSON.parse(row.topics) as Subscription['topics']),
    connectionId: row.connection_id,
    createdAt: new Date(Number(row.created_at)).toISOString(),
  }
}

export class SubscriptionStore {
  private constructor(private readonly database: Database) {}

  /** Creates the table if missing and returns the store. */
  static async open(database: Database): Promise<SubscriptionStore> {
    await applySchema(database, SUBSCRIPTIONS_SCHEMA)
    return new SubscriptionStore(database)
  }

  /** Stores a new subscription. @throws the driver's error if `id` is taken. */
  async insert(subscription: Omit<Subscription, 'delivery'>): Promise<void> {
    const topics = subscription.topics ? JSON.stringify(subscription.topics) : null
    await execute(
      this.database,
      sql`INSERT INTO event_subscriptions (${COLUMNS})
      VALUES (${subscription.id}, ${subscription.url}, ${topics}, ${subscription.connectionId}, ${Date.parse(subscription.createdAt)})`,
    )
  }

  /** Every subscription, oldest first. */
  async list(): Promise<Subscription[]> {
    const rows = await selectRows<Row>(this.database, sql`SELECT ${COLUMNS} FROM event_subscriptions ORDER BY created_at, id`)
    return rows.map(toSubscription)
  }

  /** The subscription `id`, if any. */
  async get(id: string): Promise<Subscription | undefined> {
    const [row] = await selectRows<Row>(this.database, sql`SELECT ${COLUMNS} FROM event_subscriptions WHERE id = ${id}`)
    return row && toSubscription(row)
  }

  /** Deletes the subscription `id`. @returns whether it existed. */
  async delete(id: string): Promise<boolean> {
    return (await execute(this.database, sql`DELETE FROM event_subscriptions WHERE id = ${id}`)) > 0
  }
}
