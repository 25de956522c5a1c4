/**
 * The scripted model of the chat round-trip benchmark in a process of its own. The model is not
 * part of what the benchmark compares (in production it is a remote service): in the benchmark's
 * process its HTTP work would count in that process's CPU and wait for its event loop, which the
 * wallets and agent-node keep busy, on the full path only. Run directly, this file starts the
 * scripted model (answering `echo: <last user text>`) and prints `url <base URL>`.
 */
import { fileURLToPath } from 'node:url'
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { launch, type ManagedProcess, waitUntilReady } from '../scripts/local-stack.ts'

/** How long the process may take to print its URL, in milliseconds. */
const START_TIMEOUT_MS = 30_000

/** The scripted model's process: its base URL (ending in `/v1`) and `stop`. */
export interface ScriptedLlmProcess {
  url: string
  stop(): Promise<void>
}

/**
 * Starts this file as a child process and resolves with the model's URL once it listens.
 * @throws when the process exits or prints no URL within `START_TIMEOUT_MS` (`waitUntilReady`, with its output).
 */
export async function startScriptedLlmProcess(): Promise<ScriptedLlmProcess> {
  const proc: ManagedProcess = launch({
    name: 'scripted-llm',
    command: process.execPath,
    args: ['--import', 'tsx', fileURLToPath(import.meta.url)],
    env: {},
  })
  const url = () => /^url (\S+)$/m.exec(proc.output())?.[1]
  try {
    await waitUntilReady(proc, 'the scripted model printed its URL', () => url() !== undefined, START_TIMEOUT_MS)
  } catch (error) {
    await proc.stop()
    throw error
  }
  return { url: url()!, stop: () => proc.stop() }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const llm = await startScriptedLlm()
  console.log(`url ${llm.url}`)
  const stop = () => void llm.close().finally(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
