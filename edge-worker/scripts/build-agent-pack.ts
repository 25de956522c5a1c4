/**
 * `node --import tsx edge-worker/scripts/build-agent-pack.ts [--pack <dir>] [--out <file>]`:
 * wrangler's `[build] command` (before `wrangler dev` and `wrangler deploy`). Writes the module of
 * the pack in `--pack` (default AGENT_PACK_PATH, else `agent-packs/`) to `--out` (default
 * `src/generated/agent-pack.ts`). See agent-pack-module.ts. A manifest that does not parse fails
 * the build with its file and line.
 */
import { parseArgs } from 'node:util'
import { writeAgentPackModule } from './agent-pack-module.ts'

try {
  const { values } = parseArgs({ options: { pack: { type: 'string' }, out: { type: 'string' } } })
  const path = await writeAgentPackModule(values.pack, values.out)
  console.log(path ? `agent pack: bundled ${path}` : 'agent pack: none found; the Worker will use env and defaults')
} catch (error) {
  console.error(`agent pack: ${(error as Error).message}`)
  process.exitCode = 1
}
