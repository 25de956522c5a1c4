/** Small helpers over Credo records. */
import type { AgentContext, BaseRecordAny, BaseRecordConstructor, Query } from '@credo-ts/core'
import { cutPage, type Page, type PageRequest, readLimit } from '../database/pages.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import type { DidcommAgent } from './agent.ts'

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
): Promise<Page<R>> {
  const records = await storage.findNewestFirst(agentContext, recordClass, query, { limit: readLimit(limit), after })
  return cutPage(records, limit, (record) => ({ createdAt: record.createdAt.getTime(), id: record.id }))
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
): Promise<Page<V>> {
  const { records, next } = await pageNewestFirst(storage, agent.context, recordClass, {}, request)
  return { records: await Promise.all(records.map((record) => view(agent, record))), next }
}
