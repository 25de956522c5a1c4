/** Reading a Conversation object's SQLite storage from the workers tests. */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { conversationFor } from '../../src/bindings.ts'

/** Rows of `query` (plain SQL) in the conversation of `connectionId`. */
export function conversationRows<T extends Record<string, SqlStorageValue>>(connectionId: string, query: string): Promise<T[]> {
  return runInDurableObject(conversationFor(env, connectionId), (_instance, state) => state.storage.sql.exec<T>(query).toArray())
}

/** When the conversation of `connectionId` has its alarm set to fire (epoch ms), or null when none is set. */
export function conversationAlarm(connectionId: string): Promise<number | null> {
  return runInDurableObject(conversationFor(env, connectionId), (_instance, state) => state.storage.getAlarm())
}
