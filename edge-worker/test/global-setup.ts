/**
 * Global setup of the workers project (runs in Node before the workerd pool starts): writes the
 * bundled agent pack module, starts the scripted model server, bundles the Worker as
 * `wrangler deploy` would (for the auxiliary test workers configured in vitest.config.ts), and
 * issues the AnonCreds credential the engine tests present in workerd.
 */
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { echoLastUserMessage, startScriptedLlm, type ScriptedChatMessage, type ScriptedToolCalls } from './stand-ins/scripted-llm.ts'
import { writeAgentPackModule } from '../scripts/agent-pack-module.ts'
import { issueAnoncredsFixture } from '../../shared/test/anoncreds/support/fixture.ts'
import { FAIL_MARKER, TOOL_MARKER } from './support/constants.ts'

const REPO_ROOT = resolve(import.meta.dirname, '../..')
const BUNDLE_DIR = resolve(REPO_ROOT, '.wrangler/test-bundle')

/** Echoes the user; `[fail]` fails; `[tool]` calls the `lookup` tool, then answers with its result. */
function scriptedReply(messages: ScriptedChatMessage[]): string | ScriptedToolCalls {
  const last = messages.at(-1)
  if (last?.role === 'tool') return `tool said: ${String(last.content)}`
  const reply = echoLastUserMessage(messages)
  if (reply.includes(FAIL_MARKER)) throw new Error('scripted failure')
  if (reply.includes(TOOL_MARKER)) return { toolCalls: [{ name: 'lookup', arguments: { query: 'parley' } }] }
  return reply
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await writeAgentPackModule()
  await promisify(execFile)(
    process.execPath,
    [resolve(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', BUNDLE_DIR],
    { cwd: REPO_ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  )

  const llm = await startScriptedLlm({ reply: scriptedReply })
  // The `lookup` tool (LLM_TOOLS_CONFIG of the test worker): answers `found <q>`.
  const tool = createServer((request, response) => response.end(`found ${new URL(request.url ?? '/', 'http://x').searchParams.get('q')}`))
  await new Promise<void>((done) => tool.listen(0, '127.0.0.1', done))
  const inspector = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(llm.requests))
  })
  await new Promise<void>((done) => inspector.listen(0, '127.0.0.1', done))

  project.provide('llmBaseUrl', llm.url)
  project.provide('llmRequestsUrl', `http://127.0.0.1:${(inspector.address() as AddressInfo).port}/requests`)
  project.provide('toolBaseUrl', `http://127.0.0.1:${(tool.address() as AddressInfo).port}`)
  project.provide('workerBundlePath', resolve(BUNDLE_DIR, 'index.js'))
  project.provide('anoncredsFixture', issueAnoncredsFixture())
  return async () => {
    inspector.closeAllConnections()
    tool.closeAllConnections()
    await Promise.all([llm.close(), new Promise((done) => inspector.close(done)), new Promise((done) => tool.close(done))])
  }
}
