/** `GET /v1/agent`: agent information (spec: used to check that AGENT_PUBLIC_DID resolved). */
import type { z } from '@hono/zod-openapi'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { AgentInfoBody } from '../schemas.ts'

/** What `GET /v1/agent` answers. */
export type AgentInfo = z.infer<typeof AgentInfoBody>

const getAgent = jsonRoute({
  method: 'get',
  path: '/v1/agent',
  tags: ['agent'],
  summary: 'Agent information',
  responses: { 200: [AgentInfoBody, 'Agent information'] },
})

/** The `/v1/agent` sub-app, answering `deps.info`. */
export function agentRoutes(deps: { info: AgentInfo }) {
  return adminRouter().openapi(getAgent, (c) => c.json(deps.info, 200))
}
