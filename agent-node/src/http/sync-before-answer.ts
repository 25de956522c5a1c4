/**
 * The last step before an HTTP answer of agent-node leaves: waiting until every commit made so
 * far is durable (`Database.syncToDisk`, `database/disk-sync.ts`), so a caller never learns of a
 * state (a connection, an accepted message, a credential type) that a power loss could undo.
 * Syncs are shared by the requests waiting together; with nothing written since the last one a
 * sync costs a thread-pool round trip.
 */
import type { MiddlewareHandler } from 'hono'

/** Hono middleware: runs the request, then waits for `syncToDisk` before the answer is sent. */
export function syncBeforeAnswer(syncToDisk: () => Promise<void>): MiddlewareHandler {
  return async (_c, next) => {
    await next()
    await syncToDisk()
  }
}
