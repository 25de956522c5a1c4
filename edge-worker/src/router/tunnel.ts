/** `GET /tunnel`: agent-node's WebSocket upgrade, handed as-is to the tunnel gateway object. */
import { Hono } from 'hono'
import type { Env } from '../env.ts'
import { tunnelGateway } from '../bindings.ts'

export const tunnel = new Hono<{ Bindings: Env }>().get('/', (c) => tunnelGateway(c.env).fetch(c.req.raw))
