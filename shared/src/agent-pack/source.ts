/**
 * Reading a manifest file's text (spec rule 1): YAML for `.yaml`/`.yml`, JSON for `.json`.
 */
import { parse as parseYaml, YAMLParseError } from 'yaml'

/** File names the spec accepts for the manifest, in the order they are looked for. */
export const AGENT_PACK_FILE_NAMES = ['agent-pack.yaml', 'agent-pack.yml', 'agent-pack.json'] as const

/** A manifest file as read: where it came from (for messages and format) and its raw text. */
export interface AgentPackSource {
  path: string
  text: string
}

/** Why a manifest file could not be parsed: `path:line:column: problem` in `error`. */
export interface AgentPackSyntaxError {
  error: string
  /** 1-based position of the problem, when the parser gives one. */
  line?: number
  column?: number
}

/**
 * Parses `source` into its raw (unvalidated) value.
 * @returns the value, or the syntax error with the file and line (never throws).
 */
export function parseAgentPackSource(source: AgentPackSource): { value: unknown } | AgentPackSyntaxError {
  try {
    const value: unknown = source.path.endsWith('.json') ? JSON.parse(source.text) : parseYaml(source.text)
    return { value }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const position = errorPosition(error, source.text)
    const where = position ? `${source.path}:${position.line}:${position.column}` : source.path
    const problem = (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '')
    return { error: `${where}: cannot be parsed: ${problem}`, ...position }
  }
}

function errorPosition(error: unknown, text: string): { line: number; column: number } | undefined {
  if (error instanceof YAMLParseError) {
    const start = error.linePos?.[0]
    return start && { line: start.line, column: start.col }
  }
  // JSON.parse: "... at position 12" (and, on newer engines, "(line 2 column 3)").
  const match = error instanceof Error ? /line (\d+) column (\d+)/.exec(error.message) : null
  if (match) return { line: Number(match[1]), column: Number(match[2]) }
  const offset = error instanceof Error ? /position (\d+)/.exec(error.message) : null
  if (offset) {
    const before = text.slice(0, Number(offset[1])).split('\n')
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }
  }
  // Unexpected end of input: the problem is at the end of the text.
  const lines = text.split('\n')
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 }
}
