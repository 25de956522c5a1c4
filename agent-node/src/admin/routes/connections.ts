/**
 * Connections (spec "Connection"; the filters and the delete are vs-agent's), served from
 * `didcomm/connections.ts`:
 * - `GET /v1/connections[?outOfBandId&state&role&did&theirDid&threadId&invitationDid][&limit&cursor]`:
 *   every connection matching all the filters given (an unknown filter is a 400, never ignored),
 *   newest first; `invitationDid` matches both sides: the connections made through this agent's
 *   invitations naming the DID (the public DID) and those made through another agent's
 *   invitation naming it. With `limit`, one page (`../paging.ts`);
 * - `GET /v1/connections/{connection_id}`;
 * - `DELETE /v1/connections/{connection_id}`: deletes the record (204); the peer is not told
 *   (send `terminate-connection` first to hang up).
 */
import { z } from '@hono/zod-openapi'
import { boundedName } from '@parley/shared'
import { DidCommDidExchangeRole, DidCommDidExchangeState, type DidCommConnectionRecord } from '@credo-ts/didcomm'
import { connectionState, type Connections } from '../../didcomm/connections.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { checkCursor, linkNextPage, PAGE_PARAMS, pageRequest, pagedListResponse } from '../paging.ts'
import { ConnectionBody, ConnectionIdParam } from '../schemas.ts'

/** The spec's Connection view of a Credo connection record. */
export function toConnectionBody(record: DidCommConnectionRecord): ConnectionBody {
  return {
    id: record.id,
    createdAt: record.createdAt.toISOString(),
    updatedAt: (record.updatedAt ?? record.createdAt).toISOString(),
    did: record.did,
    theirDid: record.theirDid,
    theirLabel: record.theirLabel,
    state: connectionState(record),
    role: record.role,
    threadId: record.threadId,
    outOfBandId: record.outOfBandId,
  }
}

const ConnectionFilters = z.strictObject({
  outOfBandId: z.uuid().optional(),
  state: z
    .union([z.enum(DidCommDidExchangeState), z.literal('terminated')])
    .optional()
    .describe('A DID Exchange state, or terminated'),
  role: z.enum(DidCommDidExchangeRole).optional(),
  did: boundedName(512).optional(),
  theirDid: boundedName(512).optional(),
  threadId: boundedName(512).optional(),
  invitationDid: boundedName(512).optional(),
})

const ConnectionListQuery = ConnectionFilters.extend(PAGE_PARAMS).superRefine(checkCursor)

const listConnections = jsonRoute({
  method: 'get',
  path: '/v1/connections',
  tags: ['connections'],
  summary: 'List connections',
  query: ConnectionListQuery,
  responses: {
    200: pagedListResponse(z.array(ConnectionBody), 'The connections matching every filter given'),
    400: 'Unknown filter or invalid value; `issues` names it',
  },
})

const getConnection = jsonRoute({
  method: 'get',
  path: '/v1/connections/{connection_id}',
  tags: ['connections'],
  summary: 'Get one connection',
  params: ConnectionIdParam,
  responses: { 200: [ConnectionBody, 'The connection'], 400: 'connection_id is not a UUID', 404: 'No such connection' },
})

const deleteConnection = jsonRoute({
  method: 'delete',
  path: '/v1/connections/{connection_id}',
  tags: ['connections'],
  summary: 'Delete a connection record',
  description: 'Deletes the record only: the peer is not told. Send a terminate-connection message first to hang up.',
  params: ConnectionIdParam,
  responses: { 204: 'Deleted', 400: 'connection_id is not a UUID', 404: 'No such connection' },
})

/** The `/v1/connections` sub-app over `deps.connections` (`didcomm/connections.ts`). */
export function connectionRoutes(deps: { connections: Pick<Connections, 'page' | 'get' | 'delete'> }) {
  return adminRouter()
    .openapi(listConnections, async (c) => {
      const { limit, cursor, ...filters } = c.req.valid('query')
      const page = await deps.connections.page(filters, pageRequest({ limit, cursor }))
      linkNextPage(c, page.next)
      return c.json(page.records.map(toConnectionBody), 200)
    })
    .openapi(getConnection, async (c) => c.json(toConnectionBody(await deps.connections.get(c.req.valid('param').connection_id)), 200))
    .openapi(deleteConnection, async (c) => {
      await deps.connections.delete(c.req.valid('param').connection_id)
      return c.body(null, 204)
    })
}
