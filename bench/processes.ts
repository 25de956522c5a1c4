/** What the benchmarks read about processes from Linux `/proc`: memory and CPU time. */
import { readdirSync, readFileSync } from 'node:fs'

/** The fields of `/proc/<pid>/stat` after the command name (which is in parentheses and may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/** The resident set size of process `pid`, bytes (Linux `/proc`). */
export function rssOf(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(line?.[1] ?? Number.NaN) * 1024
}

/**
 * The CPU time process `pid` has used, user + system, ms: fields 14 and 15 of Linux
 * `/proc/<pid>/stat`, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
 */
export function cpuOf(pid: number): number {
  const fields = statFields(pid)
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * The CPU time (`cpuOf`, ms) of process `pid` and every process below it, as they are now (the
 * worker's `wrangler` process and the `workerd` processes it starts, say). Processes that exit
 * meanwhile are left out.
 */
export function treeCpuOf(pid: number): number {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const parent = Number(statFields(Number(entry))[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {} // gone since the listing
  }
  let total = 0
  for (const queue = [pid]; queue.length > 0; ) {
    const next = queue.pop()!
    try {
      total += cpuOf(next)
    } catch {}
    queue.push(...(children.get(next) ?? []))
  }
  return total
}
