/**
 * Reads Prometheus text exposition (what `GET /metrics` answers) in tests: the samples, and the
 * value of one sample by name and labels.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** Every sample of `text` (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match) continue
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]))
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
}

/** `GET url` (a `/metrics` endpoint), which must answer 200 in Prometheus text format. @returns its samples. */
export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url)
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/plain')) {
    throw new Error(`${url} answered ${response.status} ${response.headers.get('content-type')}`)
  }
  return parseSamples(await response.text())
}

/** Scrapes `url` until `condition` holds on the samples (counters move once traffic settles), at most 200 times. */
export async function scrapeUntil(url: string, condition: (samples: Sample[]) => boolean): Promise<Sample[]> {
  for (let i = 0; i < 200; i++) {
    const samples = await scrape(url)
    if (condition(samples)) return samples
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${url}: the metrics never reached the expected values`)
}
