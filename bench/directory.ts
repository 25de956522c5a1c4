/**
 * `npm run bench -- directory`: who is told of an approval request (`Directory.holders`, once per
 * approval transition), against the size of the user directory, in the real Directory object
 * (workerd via `wrangler dev`, test entry). The directory grows through the test entry's
 * `directory/members` hook (each member on a connection of its own; the first 20 hold the role
 * asked for, as approvers are a few among many users) to each size of `BENCH_DIRECTORY_SIZES` (default 0,1000,10000,20000 members); at
 * each size `BENCH_LOOKUPS` (default 50) `holders` calls run one at a time after 5 of warm-up,
 * alternating with as many lookups of one unknown identity (`Directory.user`, an index lookup):
 * the reference for the hook's own round trip. Printed per size: p50 of both, and holders' own
 * part (the difference), so a cost that grows with the directory shows in one run.
 */
import { randomBytes } from 'node:crypto'
import { startWorker } from '../scripts/local-stack.ts'
import { ms, summarize } from './stats.ts'

const SIZES = (process.env.BENCH_DIRECTORY_SIZES ?? '0,1000,10000,20000').split(',').map(Number)
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 50)
const WARMUP = 5
const ROLE = 'approver'
/** Members holding `ROLE`: the first ones signed in. */
const HOLDERS = 20
/** Members signed in per hook request while the directory grows. */
const PER_REQUEST = 500

export async function runDirectory(): Promise<void> {
  console.log(`directory: ${LOOKUPS} holders calls and ${LOOKUPS} user lookups one at a time at ${SIZES.join(', ')} members`)
  const secret = randomBytes(32).toString('base64url')
  const worker = await startWorker({ vars: { TUNNEL_SECRET: secret }, entry: 'edge-worker/test/entry/index.ts' })
  const hook = async (path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${worker.url}/test-hooks/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    return response.json()
  }
  const timed = async (path: string): Promise<number> => {
    const start = performance.now()
    await hook(path)
    return performance.now() - start
  }
  try {
    let members = 0
    for (const size of SIZES) {
      while (members < size) {
        const batch = Array.from({ length: Math.min(PER_REQUEST, size - members) }, (_, i) => {
          const n = members + i
          return { connectionId: `connection-${n}`, identity: `user-${n}`, roles: n < HOLDERS ? [ROLE] : ['member'] }
        })
        await hook('directory/members', { members: batch })
        members += batch.length
      }
      const holders = { samples: [] as number[] }
      const lookups = { samples: [] as number[] }
      for (let i = 0; i < WARMUP + LOOKUPS; i++) {
        const holdersMs = await timed(`holders/${ROLE}`)
        const lookupMs = await timed('directory/nobody')
        if (i < WARMUP) continue
        holders.samples.push(holdersMs)
        lookups.samples.push(lookupMs)
      }
      const { holders: found } = (await hook(`holders/${ROLE}`)) as { holders: number }
      const h = summarize(holders.samples)
      const l = summarize(lookups.samples)
      console.log(
        `${String(size).padStart(6)} members (${found} holders): holders p50 ${ms(h.p50)}, p99 ${ms(h.p99)}; user lookup p50 ${ms(l.p50)}; holders' own part ${ms(h.p50 - l.p50)}`,
      )
    }
  } finally {
    await worker.stop()
  }
}
