/**
 * `GET {public_url}/s?id=<uuid>` (spec "Endpoints"): a wallet asking for JSON (`Accept:
 * application/json`, as Credo and other Aries wallets do for short URLs) gets the out-of-band
 * invitation message; anyone else (a phone camera, a browser) is redirected (302) to the long
 * invitation URL. An id that is not a UUID, unknown or expired answers 404.
 */
import type { Hono } from 'hono'
import { z } from 'zod'
import type { ShortUrls } from './ShortUrls.ts'

const ShortUrlId = z.uuid()

export function shortUrlRoute(app: Hono, shortUrls: ShortUrls): void {
  app.get('/s', async (c) => {
    const id = ShortUrlId.safeParse(c.req.query('id'))
    const record = id.success ? await shortUrls.resolve(id.data) : undefined
    if (!record) return c.json({ error: 'not_found', message: 'unknown or expired short URL' }, 404)
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(record.invitation, 200)
    return c.redirect(record.url, 302)
  })
}
