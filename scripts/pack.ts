/**
 * `npm run pack -- <command>`: tools for agent packs (docs/agent-pack.md).
 *
 *   check [dir] [--strict]  resolve the pack in `dir` (default AGENT_PACK_PATH, else agent-packs/)
 *                           against this shell's environment; print it with secrets masked and
 *                           every warning. Exits 1 when the file is missing or does not parse
 *                           (with --strict, also on warnings).
 *   schema [--check]        write agent-packs/agent-pack.schema.json from the zod schema (with
 *                           --check, only compare and exit 1 when it is out of date).
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { stringify } from 'yaml'
import {
  AGENT_PACK_SCHEMA_FILE,
  agentPackJsonSchema,
  maskSecrets,
  resolveAgentPack,
  type AgentPackSource,
  type EnvRecord,
} from '@parley/shared/agent-pack'
import { loadCheckedAgentPackFile } from '@parley/shared/agent-pack/node'
import { ROOT } from './local-stack.ts'

/** The outcome of a command: what to print on stdout and stderr, and the exit code. */
export interface CommandResult {
  stdout: string
  stderr: string
  exitCode: number
}

/**
 * `check`: resolves the pack in `dir` against `env`.
 * @returns the masked configuration (YAML) on stdout, warnings and errors on stderr; exit code 1
 *   when there is no manifest in `dir` or it does not parse, or (`strict`) on any warning.
 */
export async function checkPack(dir: string, env: EnvRecord, { strict = false } = {}): Promise<CommandResult> {
  let source: AgentPackSource | undefined
  try {
    source = await loadCheckedAgentPackFile(dir)
  } catch (error) {
    return { stdout: '', stderr: `error: ${(error as Error).message}\n`, exitCode: 1 }
  }
  if (source === undefined)
    return { stdout: '', stderr: `error: no agent-pack.yaml, agent-pack.yml or agent-pack.json in ${dir}\n`, exitCode: 1 }
  const { config, warnings } = resolveAgentPack(source, env)
  const stdout = `# ${source.path}, resolved (secrets masked)\n${stringify(maskSecrets(config), { lineWidth: 0 })}`
  const stderr = `${warnings.map((warning) => `warning: ${warning}\n`).join('')}${warnings.length} warning${warnings.length === 1 ? '' : 's'}\n`
  return { stdout, stderr, exitCode: strict && warnings.length > 0 ? 1 : 0 }
}

/** The JSON Schema file's expected content. */
export function schemaFileText(): string {
  return `${JSON.stringify(agentPackJsonSchema(), null, 2)}\n`
}

/** `schema`: writes the JSON Schema file, or (`check`) only compares it. */
export async function writeSchema({ check = false } = {}): Promise<CommandResult> {
  const path = join(ROOT, AGENT_PACK_SCHEMA_FILE)
  const expected = schemaFileText()
  if (check) {
    const current = await readFile(path, 'utf8').catch(() => '')
    return current === expected
      ? { stdout: `${AGENT_PACK_SCHEMA_FILE} is up to date\n`, stderr: '', exitCode: 0 }
      : { stdout: '', stderr: `${AGENT_PACK_SCHEMA_FILE} is out of date: run npm run pack -- schema\n`, exitCode: 1 }
  }
  await writeFile(path, expected)
  return { stdout: `wrote ${AGENT_PACK_SCHEMA_FILE}\n`, stderr: '', exitCode: 0 }
}

const USAGE = 'usage: npm run pack -- check [dir] [--strict] | schema [--check]\n'

async function main(args: string[]): Promise<CommandResult> {
  const flags = new Set(args.filter((arg) => arg.startsWith('--')))
  const [command, dir] = args.filter((arg) => !arg.startsWith('--'))
  switch (command) {
    case 'check':
      return checkPack(resolve(dir || process.env.AGENT_PACK_PATH || join(ROOT, 'agent-packs')), process.env, {
        strict: flags.has('--strict'),
      })
    case 'schema':
      return writeSchema({ check: flags.has('--check') })
    default:
      return { stdout: '', stderr: USAGE, exitCode: 2 }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await main(process.argv.slice(2))
  process.stdout.write(result.stdout)
  process.stderr.write(result.stderr)
  process.exitCode = result.exitCode
}
