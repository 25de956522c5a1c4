/**
 * Reading a manifest file's text (spec rule 1): YAML for `.yaml`/`.yml`, JSON for `.json`.
 */
import { parse as parseYaml } from 'yaml'

/** File names the spec accepts for the manifest, in the order they are looked for. */
export const AGENT_PACK_FILE_NAMES = ['agent-pack.yaml', 'agent-pack.yml', 'agent-pack.json'] as const

/** A manifest file as read: where it came from (for messages and format) and its raw text. */
export interface AgentPackSource {
  path: string
  text: string
}

/**
 * Parses `source` into its raw (unvalidated) value.
 * @returns the value, or an `error` naming the file and the parser's complaint (never throws).
 */
export function parseAgentPackSource(source: AgentPackSource): { value: unknown } | { error: string } {
  try {
    const value: unknown = source.path.endsWith('.json') ? JSON.parse(source.text) : parseYaml(source.text)
    return { value }
  } catch (error) {
    return { error: `${source.path}: cannot be parsed: ${error instanceof Error ? error.message : String(error)}` }
  }
}
