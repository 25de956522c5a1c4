/**
 * `wrangler deploy --dry-run` bundles the edge worker (what a deploy uploads), and the bundle
 * fits Cloudflare's Free plan limit of 3 MiB compressed (so it fits the Paid plan's 10 MiB too).
 */
import { describe, expect, it } from 'vitest'
import { describeBundle, measureWorkerBundle, WORKER_SIZE_LIMITS } from '../../scripts/worker-bundle.ts'

describe('edge worker bundle', () => {
  it('bundles with wrangler deploy --dry-run within the Free plan size limit', async () => {
    const bundle = await measureWorkerBundle()
    console.info(describeBundle(bundle))
    expect(bundle.gzipBytes).toBeGreaterThan(0)
    expect(bundle.gzipBytes).toBeLessThanOrEqual(WORKER_SIZE_LIMITS.free)
  })
})
