/** Small helpers over Credo records. */
import type { AgentContext, BaseRecordAny, BaseRecordConstructor, Query } from '@credo-ts/core'
import type { DrizzleStorageService, RecordPosition } from '../wallet/storage/index.ts'
import type { DidcommAgent } from './agent.ts'

/** What a page asks for: at most `limit` records (negative: all of them), those after `after`. */
export interface PageRequest {
  limit: number
  after?: RecordPosition
}

/** One page of records, newest first, and where the next page starts (none after the last). */
export interface RecordPage<R> {
  records: R[]
  /** The last record of this page: the next page lists those after it. */
  next?: RecordPosition
}

/**
 * One page of the records of `recordClass` matching `query` in the record store `storage`, newest
 * first (`DrizzleStorageService.findNewestFirst`): records made or deleted while a client pages
 * neither repeat nor shift the pages, each continuing from a fixed position.
 */
export async function pageNewestFirst<R extends BaseRecordAny>(
  storage: DrizzleStorageService,
  agentContext: AgentContext,
  recordClass: BaseRecordConstructor<R>,
  query: Query<R>,
  { limit, after }: PageRequest,
): Promise<RecordPage<R>> {
  // One more than asked tells whether a next page exists.
  const records = await storage.findNewestFirst(agentContext, recordClass, query, { limit: limit < 0 ? -1 : limit + 1, olderThan: after })
  if (limit < 0 || records.length <= limit) return { records }
  const last = records[limit - 1]!
  return { records: records.slice(0, limit), next: { createdAt: last.createdAt.getTime(), id: last.id } }
}

/**
 * A page (`pageNewestFirst`) of every record of `recordClass` in the record store `storage`, each
 * shown as `view(agent, record)` (a page's views are built at once): the admin API's exchange lists.
 */
export async function pageOfViews<R extends BaseRecordAny, V>(
  agent: DidcommAgent,
  storage: DrizzleStorageService,
  recordClass: BaseRecordConstructor<R>,
  view: (agent: DidcommAgent, record: R) => Promise<V>,
  request: PageRequest,
): Promise<RecordPage<V>> {
  const { records, next } = await pageNewestFirst(storage, agent.context, recordClass, {}, request)
  return { records: await Promise.all(records.map((record) => view(agent, record))), next }
}
