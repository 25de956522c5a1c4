/**
 * The API explorer `/api` works offline: in headless Chromium, with every request that leaves
 * loopback refused, Swagger UI loads from agent-node itself and renders the admin API's operations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useTestAgentNode } from '../support/agent-node.ts'
import { launchChromium } from '../support/chromium.ts'

describe('API explorer /api', () => {
  const started = useTestAgentNode('sqlite', { ENABLE_PUBLIC_API_EXPLORER: 'true' })
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('renders the operations with no network beyond loopback', async () => {
    const page = await browser.newPage()
    const refused: string[] = []
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.hostname === '127.0.0.1') return route.continue()
      refused.push(url.href)
      return route.abort()
    })
    const answer = await page.goto(`${started.agent.adminUrl}/api`)
    expect(answer?.status()).toBe(200)
    const operation = page.locator('.opblock-summary-path', { hasText: '/v1/message' }).first()
    await operation.waitFor({ timeout: 20_000 })
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    expect(paths.map((path) => path.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/v1/message', '/v1/invitation', '/v1/agent']))
    expect(refused).toEqual([])
  })

  it('serves only the Swagger UI files the page needs', async () => {
    const css = await fetch(`${started.agent.adminUrl}/api/assets/swagger-ui-dist/swagger-ui.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toContain('text/css')
    const other = await fetch(`${started.agent.adminUrl}/api/assets/swagger-ui-dist/package.json`)
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ error: 'not_found' })
  })
})
