/** The Worker's HTTP surface: small routers mounted on one hono app. Unknown paths answer 404 JSON. */
import { Hono } from 'hono'
import type { Env } from '../env.ts'
import { health } from './health.ts'
import { tunnel } from './tunnel.ts'

/** The Worker's fetch handler: `GET /health`, `GET /tunnel`. */
export const app = new Hono<{ Bindings: Env }>()
  .route('/health', health)
  .route('/tunnel', tunnel)
  .notFound((c) => c.json({ error: 'not-found' }, 404))
