/**
 * Health and metrics routes of the admin port, mounted on the admin app by `app.ts`:
 * - `GET /healthz`: liveness, `{ ok: true }` while the process serves HTTP;
 * - `GET /readyz`: readiness (`readiness.ts`), 200 when ready, 503 with the failing checks otherwise;
 * - `GET /metrics`: Prometheus text format (`metrics.ts`).
 * The public port keeps its own `GET /health`.
 */
import { Hono } from 'hono'
import type { Registry } from 'prom-client'
import { checkReadiness, type ReadinessSources } from './readiness.ts'

/** Routes answering from `registry` and the readiness sources. */
export function observabilityRoutes(deps: ReadinessSources & { registry: Registry }): Hono {
  return new Hono()
    .get('/healthz', (c) => c.json({ ok: true }))
    .get('/readyz', async (c) => {
      const readiness = await checkReadiness(deps)
      return c.json(readiness, readiness.ready ? 200 : 503)
    })
    .get('/metrics', async (c) => c.body(await deps.registry.metrics(), 200, { 'content-type': deps.registry.contentType }))
}
