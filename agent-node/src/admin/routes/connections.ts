/**
 * Connections (spec "Connection"; the filters and the delete are vs-agent's):
 * - `GET /v1/connections[?outOfBandId&state&role&did&theirDid&threadId&invitationDid]`: every
 *   connection matching all the filters given (an unknown filter is a 400, never ignored);
 *   `invitationDid` matches both sides: the connections made through this agent's invitations
 *   naming the DID (the public DID) and those made through another agent's invitation naming it;
 * - `GET /v1/connections/{connection_id}`;
 * - `DELETE /v1/connections/{connection_id}`: deletes the record (204); the peer is not told
 *   (send `terminate-connection` first to hang up).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { boundedName } from '@parley/shared'
import { DidCommDidExchangeRole, DidCommDidExchangeState, type DidCommConnectionRecord } from '@credo-ts/didcomm'
import { isTerminated } from '../../didcomm/hangup.ts'
import { outOfBandIdsNamingDid } from '../../didcomm/invitations.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'
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
    state: isTerminated(record) ? 'terminated' : record.state,
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

const listConnections = createRoute({
  method: 'get',
  path: '/v1/connections',
  tags: ['connections'],
  summary: 'List connections',
  request: { query: ConnectionFilters },
  responses: {
    200: {
      description: 'The connections matching every filter given, newest first',
      content: { 'application/json': { schema: z.array(ConnectionBody) } },
    },
    400: { description: 'Unknown filter or invalid value; `issues` names it', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const getConnection = createRoute({
  method: 'get',
  path: '/v1/connections/{connection_id}',
  tags: ['connections'],
  summary: 'Get one connection',
  request: { params: ConnectionIdParam },
  responses: {
    200: { description: 'The connection', content: { 'application/json': { schema: ConnectionBody } } },
    400: { description: 'connection_id is not a UUID', content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'No such connection', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const deleteConnection = createRoute({
  method: 'delete',
  path: '/v1/connections/{connection_id}',
  tags: ['connections'],
  summary: 'Delete a connection record',
  description: 'Deletes the record only: the peer is not told. Send a terminate-connection message first to hang up.',
  request: { params: ConnectionIdParam },
  responses: {
    204: { description: 'Deleted' },
    400: { description: 'connection_id is not a UUID', content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'No such connection', content: { 'application/json': { schema: ErrorBody } } },
  },
})

export function connectionRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const connections = () => deps.agent.modules.didcomm.connections
  return app
    .openapi(listConnections, async (c) => {
      const { state, invitationDid, ...tags } = c.req.valid('query')
      // Credo records `invitationDid` on the invitee's connection only: the inviter's are those of its invitations naming the DID.
      const byInvitationDid = invitationDid
        ? {
            $or: [{ invitationDid }, ...(await outOfBandIdsNamingDid(deps.agent, invitationDid)).map((outOfBandId) => ({ outOfBandId }))],
          }
        : {}
      // `terminated` is Parley's view of a completed connection either side hung up (`toConnectionBody`).
      const query = { ...tags, ...byInvitationDid, ...(state && state !== 'terminated' ? { state } : {}) }
      const records = (await connections().findAllByQuery(query)).filter((record) => !state || toConnectionBody(record).state === state)
      records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      return c.json(records.map(toConnectionBody), 200)
    })
    .openapi(getConnection, async (c) => {
      const { connection_id } = c.req.valid('param')
      const record = await connections().findById(connection_id)
      if (!record) return errorResponse(c, 404, 'not_found', `connection '${connection_id}' not found`)
      return c.json(toConnectionBody(record), 200)
    })
    .openapi(deleteConnection, async (c) => {
      const { connection_id } = c.req.valid('param')
      if (!(await connections().findById(connection_id)))
        return errorResponse(c, 404, 'not_found', `connection '${connection_id}' not found`)
      await connections().deleteById(connection_id)
      return c.body(null, 204)
    })
}
