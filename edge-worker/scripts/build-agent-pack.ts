/**
 * `node --import tsx edge-worker/scripts/build-agent-pack.ts`: wrangler's `[build] command`
 * (before `wrangler dev` and `wrangler deploy`). See agent-pack-module.ts. A manifest that does
 * not parse fails the build with its file and line.
 */
import { writeAgentPackModule } from './agent-pack-module.ts'

try {
  const path = await writeAgentPackModule()
  console.log(path ? `agent pack: bundled ${path}` : 'agent pack: none found; the Worker will use env and defaults')
} catch (error) {
  console.error(`agent pack: ${(error as Error).message}`)
  process.exitCode = 1
}
