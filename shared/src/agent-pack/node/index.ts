/**
 * Node-only part of the agent-pack loader: finding and reading the manifest file in a directory
 * (spec rule 1). Kept apart so the resolver stays free of `node:` imports.
 */
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AGENT_PACK_FILE_NAMES, parseAgentPackSource, type AgentPackSource } from '../source.ts'

/**
 * Reads the first of `agent-pack.yaml`, `agent-pack.yml`, `agent-pack.json` found in `dir`.
 * @returns the file's path (`dir` joined with its name) and text, or `undefined` when `dir`
 *   has none of them or does not exist.
 * @throws when a file exists but cannot be read (permissions, a directory of that name).
 */
export async function loadAgentPackFile(dir: string): Promise<AgentPackSource | undefined> {
  for (const name of AGENT_PACK_FILE_NAMES) {
    const path = join(dir, name)
    try {
      return { path, text: await readFile(path, 'utf8') }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return undefined
}

/**
 * `loadAgentPackFile`, synchronously: for a process that reads its configuration once at start-up
 * (agent-node's `loadConfig`). Same result and errors.
 */
export function loadAgentPackFileSync(dir: string): AgentPackSource | undefined {
  for (const name of AGENT_PACK_FILE_NAMES) {
    const path = join(dir, name)
    try {
      return { path, text: readFileSync(path, 'utf8') }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return undefined
}

/**
 * `loadAgentPackFile`, then a syntax check: what a build or a check runs, where a file that does
 * not parse must stop everything rather than fall back to defaults.
 * @throws an Error whose message is `path:line:column: cannot be parsed: problem`.
 */
export async function loadCheckedAgentPackFile(dir: string): Promise<AgentPackSource | undefined> {
  const source = await loadAgentPackFile(dir)
  if (source === undefined) return undefined
  const parsed = parseAgentPackSource(source)
  if ('error' in parsed) throw new Error(parsed.error)
  return source
}
