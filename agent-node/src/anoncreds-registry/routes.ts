/**
 * Public route of the AnonCreds service (2060.io's did:web AnonCreds method, "Object
 * resolution"): `GET /anoncreds/v1/<schema|credDef>/<object id>` answers
 * `{ resource, resourceMetadata }` for an object this agent published under its public DID, 404
 * otherwise.
 */
import type { AgentContext } from '@credo-ts/core'
import { Hono } from 'hono'
import { ANONCREDS_PATH } from '../did/document.ts'
import { findPublishedObject } from './DidWebAnonCredsRegistry.ts'
import { anonCredsObjectIdFor } from './identifiers.ts'

export function anonCredsRoutes(agentContext: () => AgentContext, publicDid: string): Hono {
  const app = new Hono()
  app.get(`${ANONCREDS_PATH}/:kind{schema|credDef}/:objectId`, async (c) => {
    const id = anonCredsObjectIdFor(publicDid, c.req.param('kind') as 'schema' | 'credDef', c.req.param('objectId'))
    const record = await findPublishedObject(agentContext(), id)
    if (!record) return c.json({ error: 'not_found', message: `no AnonCreds object ${id}` }, 404)
    return c.json({ resource: record.object, resourceMetadata: {} })
  })
  return app
}
