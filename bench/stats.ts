/** Percentiles and formatting shared by the benchmark entries. */

/** The `p`-th percentile (0–100, nearest rank) of `samples`, which it sorts in place. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  samples.sort((a, b) => a - b)
  const rank = Math.min(samples.length - 1, Math.max(0, Math.ceil((p / 100) * samples.length) - 1))
  return samples[rank]!
}

export interface LatencySummary {
  n: number
  p50: number
  p99: number
  mean: number
}

/** Summary of latency samples in milliseconds. */
export function summarize(samples: number[]): LatencySummary {
  const copy = [...samples]
  return { n: copy.length, p50: percentile(copy, 50), p99: percentile(copy, 99), mean: copy.reduce((a, b) => a + b, 0) / copy.length }
}

export const ms = (value: number) => `${value.toFixed(2)} ms`

/** Runs `make(i)` for i = 0..count-1, at most `parallel` at once; results in index order. */
export async function inBatches<T>(count: number, parallel: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let start = 0; start < count; start += parallel) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, (_, k) => make(start + k)))))
  }
  return results
}
