/**
 * Pages of the admin API's lists (`GET /v1/connections`, `/v1/credential-exchanges`,
 * `/v1/presentations`, and `/v1/dead-letters`, which the specification pages by `limit` and a
 * time). The specification leaves the admin interface's pagination open otherwise, and
 * vs-agent returns whole lists, so without `limit` a list is whole. With `limit` it is one page,
 * newest first, paged as GitHub's API pages: the next page's URL in a `Link` header (RFC 8288,
 * `rel="next"`) that keeps the request's other parameters and adds an opaque `cursor` (Credo's
 * `encodeCursor` of the page's last record); no `Link` on the last page. Keyset paging
 * (`database/pages.ts`): records made or deleted meanwhile neither repeat nor shift the pages.
 */
import { decodeCursor, encodeCursor } from '@credo-ts/core'
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { PageRequest, RowPosition } from '../database/pages.ts'

/** The largest page a list returns. */
export const MAX_PAGE = 1_000

/** The query parameters of a page, to add to a list's own (`schema.extend(PAGE_PARAMS).superRefine(checkCursor)`). */
export const PAGE_PARAMS = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .optional()
    .describe(`At most this many (one page, up to ${MAX_PAGE}); the next page is in the \`Link\` header. Absent: all of them`),
  /** Decoded here, once: the handler gets the position the cursor names. */
  cursor: z
    .string()
    .max(500)
    .optional()
    .transform((cursor, context): RowPosition | undefined => {
      if (cursor === undefined) return undefined
      const position = decodeCursor(cursor)
      if (position) return { createdAt: position.createdAt.getTime(), id: position.id }
      context.addIssue({ code: 'custom', message: "not a cursor from a page's Link header" })
      return z.NEVER
    })
    .describe('Where a page starts: from the previous page\'s `Link` header (`rel="next"`)'),
}

/** The issue a `cursor` gets without `limit` (one a page's `Link` did not give is refused as it is decoded). */
export function checkCursor(query: { limit?: number; cursor?: RowPosition }, context: z.RefinementCtx): void {
  if (query.cursor !== undefined && query.limit === undefined)
    context.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor needs limit' })
}

/** The page a checked query asks for (`checkCursor` ran): `limit` -1 for a whole list. */
export function pageRequest({ limit, cursor }: { limit?: number; cursor?: RowPosition }): PageRequest {
  return { limit: limit ?? -1, after: cursor }
}

/** Sets the `Link` header naming the page after `next` (none: the last page, no header). */
export function linkNextPage(c: Context, next: RowPosition | undefined): void {
  if (!next) return
  const url = new URL(c.req.url)
  url.searchParams.set('cursor', encodeCursor({ createdAt: new Date(next.createdAt), id: next.id }))
  c.header('Link', `<${url.pathname}${url.search}>; rel="next"`)
}

/** The 200 response of a list that pages: `items` (`what`, newest first) as JSON, and its `Link` header. */
export function pagedListResponse<T extends z.ZodType>(items: T, what: string) {
  return {
    description: `${what}, newest first; the next page's URL, while more follow one, in the \`Link\` header`,
    content: { 'application/json': { schema: items } },
    headers: z.object({
      Link: z.string().optional().openapi({ description: 'While more follow a page: `<URL of the next page>; rel="next"` (RFC 8288)' }),
    }),
  }
}
