/**
 * `node --import tsx edge-worker/scripts/build-agent-pack.ts`: wrangler's `[build] command`
 * (before `wrangler dev` and `wrangler deploy`). See agent-pack-module.ts.
 */
import { writeAgentPackModule } from './agent-pack-module.ts'

const path = await writeAgentPackModule()
console.log(path ? `agent pack: bundled ${path}` : 'agent pack: none found; the Worker will use env and defaults')
