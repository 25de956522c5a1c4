/** `GET /health`: liveness of the Worker, `{ ok: true }`. */
import { Hono } from 'hono'
import type { Env } from '../env.ts'

export const health = new Hono<{ Bindings: Env }>().get('/', (c) => c.json({ ok: true }))
