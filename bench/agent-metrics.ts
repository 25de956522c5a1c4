/** Reading agent-node's own figures from its Prometheus `/metrics` (admin port) in a bench. */

/**
 * The values of the unlabelled gauges `names` in agent-node's `/metrics` at `adminUrl`, as
 * exported (seconds, bytes). Scraping resets prom-client's event-loop delay histogram.
 * @throws when a gauge is missing
 */
export async function readGauges<N extends string>(adminUrl: string, names: readonly N[]): Promise<Record<N, number>> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text()
  const values = {} as Record<N, number>
  for (const name of names) {
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]
    if (value === undefined) throw new Error(`/metrics has no ${name}`)
    values[name] = Number(value)
  }
  return values
}
