/**
 * The API explorer: `GET /api` (Swagger UI) and the two Swagger UI files it loads, served from
 * the `swagger-ui-dist` npm package under `/api/assets/swagger-ui-dist/`, so the page works on a
 * private admin network with no internet access (no CDN).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { swaggerUI } from '@hono/swagger-ui'
import { Hono } from 'hono'
import { errorResponse } from './errors.ts'

/** Where the assets are served; `@hono/swagger-ui` appends `/swagger-ui-dist/<file>` to its `baseUrl`. */
const ASSET_BASE = '/api/assets'

/** The only files the page needs, with their content types. Nothing else is served from the package. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
}

const require = createRequire(import.meta.url)

/**
 * Routes of the explorer for the OpenAPI document at `specUrl`. The asset files are read once,
 * on first request, and kept in memory (about 1.5 MB).
 */
export function apiExplorer(specUrl: string): Hono {
  const cache = new Map<string, Promise<Buffer>>()
  const app = new Hono()
  app.get('/api', swaggerUI({ url: specUrl, baseUrl: ASSET_BASE, title: 'Parley agent admin API' }))
  app.get(`${ASSET_BASE}/swagger-ui-dist/:file`, async (c) => {
    const file = c.req.param('file')
    const contentType = ASSETS[file]
    if (!contentType) return errorResponse(c, 404, 'not_found', `no explorer asset named ${file}`)
    let body = cache.get(file)
    if (!body) {
      body = readFile(require.resolve(`swagger-ui-dist/${file}`))
      cache.set(file, body)
    }
    return c.body(new Uint8Array(await body), 200, { 'content-type': contentType, 'cache-control': 'public, max-age=86400' })
  })
  return app
}
