/** `GET /v1/connections` and `GET /v1/connections/{connection_id}` (spec "Connection"). */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { DidCommConnectionRecord } from '@credo-ts/didcomm'
import { isTerminated } from '../../didcomm/hangup.ts'
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

const listConnections = createRoute({
  method: 'get',
  path: '/v1/connections',
  tags: ['connections'],
  summary: 'List connections',
  responses: { 200: { description: 'All connections, newest first', content: { 'application/json': { schema: z.array(ConnectionBody) } } } },
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

export function connectionRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const connections = () => deps.agent.modules.didcomm.connections
  return app
    .openapi(listConnections, async (c) => {
      const records = await connections().getAll()
      records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      return c.json(records.map(toConnectionBody), 200)
    })
    .openapi(getConnection, async (c) => {
      const { connection_id } = c.req.valid('param')
      const record = await connections().findById(connection_id)
      if (!record) return errorResponse(c, 404, 'not_found', `connection '${connection_id}' not found`)
      return c.json(toConnectionBody(record), 200)
    })
}
