/**
 * The edge worker as `wrangler deploy` would upload it: `wrangler deploy --dry-run --outdir`
 * bundles it without deploying, and its size is reported against Cloudflare's Worker size
 * limits (compressed: 3 MiB on the Free plan, 10 MiB on Paid). `node --import tsx
 * scripts/worker-bundle.ts` prints the report; exits 1 when the bundle is over the Paid limit.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { ROOT } from './local-stack.ts'

const MIB = 1024 * 1024
/** Cloudflare's compressed Worker size limits, in bytes (developers.cloudflare.com/workers/platform/limits/). */
export const WORKER_SIZE_LIMITS = { free: 3 * MIB, paid: 10 * MIB } as const

export interface WorkerBundle {
  /** Bytes of the uploaded modules (source maps excluded), before and after gzip. */
  bytes: number
  gzipBytes: number
}

/** Bundles the worker with `wrangler deploy --dry-run` into a temporary folder and measures it. */
export async function measureWorkerBundle(): Promise<WorkerBundle> {
  const outdir = mkdtempSync(join(tmpdir(), 'parley-worker-bundle-'))
  try {
    await promisify(execFile)('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
      maxBuffer: 16 * MIB,
    })
    const modules = readdirSync(outdir).filter((name) => /\.(m?js|wasm)$/.test(name))
    if (modules.length === 0) throw new Error(`wrangler wrote no module to ${outdir}`)
    let bytes = 0
    let gzipBytes = 0
    for (const name of modules) {
      bytes += statSync(join(outdir, name)).size
      gzipBytes += gzipSync(readFileSync(join(outdir, name))).length
    }
    return { bytes, gzipBytes }
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
}

/** One line: the sizes and the share of each plan's limit. */
export function describeBundle({ bytes, gzipBytes }: WorkerBundle): string {
  const mib = (n: number) => `${(n / MIB).toFixed(2)} MiB`
  const share = (limit: number) => `${((100 * gzipBytes) / limit).toFixed(0)}%`
  return `worker bundle: ${mib(bytes)}, ${mib(gzipBytes)} gzip — ${share(WORKER_SIZE_LIMITS.free)} of the Free plan's 3 MiB, ${share(WORKER_SIZE_LIMITS.paid)} of the Paid plan's 10 MiB`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bundle = await measureWorkerBundle()
  console.log(describeBundle(bundle))
  if (bundle.gzipBytes > WORKER_SIZE_LIMITS.paid) process.exit(1)
}
