/** `GET /v1/agent`: agent information (spec: used to check that AGENT_PUBLIC_DID resolved). */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import type { AdminDeps } from '../context.ts'
import { AgentInfoBody } from '../schemas.ts'

const getAgent = createRoute({
  method: 'get',
  path: '/v1/agent',
  tags: ['agent'],
  summary: 'Agent information',
  responses: { 200: { description: 'Agent information', content: { 'application/json': { schema: AgentInfoBody } } } },
})

export function agentRoutes(deps: AdminDeps, app: OpenAPIHono) {
  return app.openapi(getAgent, (c) =>
    c.json({ publicDid: deps.publicDid, endpoint: deps.config.publicUrl, label: deps.config.label, ...deps.build }, 200),
  )
}
