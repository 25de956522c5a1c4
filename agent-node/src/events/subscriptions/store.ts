/**
 * Queries of the `event_subscriptions` table (`schema.ts`), in the outbox store's style: one
 * module, portable SQL.
 */
import { asc, eq, sql } from 'drizzle-orm'
import type { Database } from '../../database/index.ts'
import type { Subscription } from './model.ts'
import { deliveryKindOf } from './model.ts'
import { eventSubscriptions, SUBSCRIPTIONS_SCHEMA_SQL } from './schema.ts'

type Row = typeof eventSubscriptions.$inferSelect

function toSubscription(row: Row): Subscription {
  return {
    id: row.id,
    url: row.url,
    delivery: deliveryKindOf(row.url),
    topics: row.topics === null ? null : (JSON.parse(row.topics) as Subscription['topics']),
    connectionId: row.connectionId,
    createdAt: new Date(row.createdAt).toISOString(),
  }
}

export class SubscriptionStore {
  private constructor(private readonly db: Database['db']) {}

  /** Creates the table if missing and returns the store. */
  static async open(database: Database): Promise<SubscriptionStore> {
    for (const statement of SUBSCRIPTIONS_SCHEMA_SQL) await database.db.run(sql.raw(statement))
    return new SubscriptionStore(database.db)
  }

  /** Stores a new subscription. */
  async insert(subscription: Omit<Subscription, 'delivery'>): Promise<void> {
    await this.db.insert(eventSubscriptions).values({
      id: subscription.id,
      url: subscription.url,
      topics: subscription.topics ? JSON.stringify(subscription.topics) : null,
      connectionId: subscription.connectionId,
      createdAt: Date.parse(subscription.createdAt),
    })
  }

  /** Every subscription, oldest first. */
  async list(): Promise<Subscription[]> {
    const rows = await this.db.select().from(eventSubscriptions).orderBy(asc(eventSubscriptions.createdAt), asc(eventSubscriptions.id))
    return rows.map(toSubscription)
  }

  /** The subscription `id`, if any. */
  async get(id: string): Promise<Subscription | undefined> {
    const [row] = await this.db.select().from(eventSubscriptions).where(eq(eventSubscriptions.id, id))
    return row && toSubscription(row)
  }

  /** Deletes the subscription `id`. @returns whether it existed. */
  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.delete(eventSubscriptions).where(eq(eventSubscriptions.id, id)).returning({ id: eventSubscriptions.id })
    return deleted.length > 0
  }
}
