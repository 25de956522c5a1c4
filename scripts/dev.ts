/**
 * `npm start`: runs Parley locally — the edge worker in local workerd and agent-node, joined by
 * the tunnel — then prints a connection invitation (URL and terminal QR code) for
 * `npm run wallet -- <url>` or a phone wallet. Ctrl-C stops both.
 *
 * Reads the same variables as production (docs/configuration.md). The worker gets every
 * variable the agent pack may read (docs/agent-pack.md "Environment variables": the overrides,
 * keys, and each `${VAR}` or `apiKeyEnv` the pack in AGENT_PACK_PATH names) and the worker's own
 * settings (`WORKER_SETTINGS`); agent-node everything else, LOG_LEVEL too. Defaults: worker on
 * 8787, agent public port 3001, admin port 3000, data in ./data.
 */
import QRCode from 'qrcode'
import { join, resolve } from 'node:path'
import { pickEnv, referencedVariables, resolveAgentPack } from '@parley/shared/agent-pack'
import { loadAgentPackFile } from '@parley/shared/agent-pack/node'
import { ROOT, startLocalStack } from './local-stack.ts'

/**
 * Worker settings that are not agent-pack variables (docs/configuration.md, the Worker's table):
 * its outbound guard (as agent-node's), the key of users' MCP secrets, the record's retention and
 * the log level (which agent-node reads too).
 */
const WORKER_SETTINGS = ['OUTBOUND_ALLOWED_NETWORKS', 'MCP_SECRETS_KEY', 'CONVERSATION_RETENTION_DAYS', 'LOG_LEVEL']

async function main(): Promise<void> {
  const pack = await loadAgentPackFile(resolve(process.env.AGENT_PACK_PATH || join(ROOT, 'agent-packs')))
  const workerVars = pickEnv(process.env, [...referencedVariables(pack), ...WORKER_SETTINGS])
  console.log('starting the edge worker (workerd) and agent-node…')
  const stack = await startLocalStack({
    workerPort: Number(process.env.WORKER_PORT ?? 8787),
    workerPersistTo: join(ROOT, '.wrangler', 'state'),
    workerVars,
    tunnelSecret: process.env.TUNNEL_SECRET,
    agentEnv: {
      PUBLIC_PORT: process.env.PUBLIC_PORT ?? '3001',
      ADMIN_PORT: process.env.ADMIN_PORT ?? '3000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ENABLE_PUBLIC_API_EXPLORER: process.env.ENABLE_PUBLIC_API_EXPLORER ?? 'true',
    },
    echo: true,
  })
  const stop = async () => {
    process.stderr.write('\nstopping…\n')
    await stack.stop()
    process.exit(0)
  }
  process.stdout.on('error', () => void stop()) // the terminal or pipe went away
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())

  // Multi-use: the printed code serves every wallet that scans it.
  const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation?multiUse=true`)).json()) as { url: string }
  console.log(await QRCode.toString(url, { type: 'terminal', small: true, errorCorrectionLevel: 'L' }))
  console.log(`Invitation: ${url}\n`)
  console.log(`Chat from a terminal:  npm run wallet -- '${url}'`)
  console.log(`Invitation page:       ${stack.agent.publicUrl}/invitation`)
  console.log(`Admin API:             ${stack.agent.adminUrl}/v1/connections  (explorer: ${stack.agent.adminUrl}/api)`)
  console.log(`Edge worker:           ${stack.worker.url}`)
  const { llm } = resolveAgentPack(pack, workerVars, { notActedOn: [] }).config
  if (!llm.baseUrl && !llm.apiKey) {
    console.log('\nNo LLM configured: set COMPAT_BASE_URL / COMPAT_API_KEY / COMPAT_MODEL for real answers.')
  }
}

main().catch((error) => {
  console.error(`npm start failed: ${(error as Error).message}`)
  process.exit(1)
})
