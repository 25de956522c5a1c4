/**
 * `npm start` hands the worker its variables through the env file `wrangler dev` reads
 * (scripts/local-stack.ts `envFileLine`). A real `wrangler dev` runs a worker that answers with
 * its own env, so the test sees exactly what a Worker gets: JSON with its quotes, multi-line
 * prompts, `$` and `${...}` left alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { envFileLine, startWorker, type WorkerProcess } from '../../scripts/local-stack.ts'

const VARS: Record<string, string> = {
  LLM_TOOLS_CONFIG: JSON.stringify([
    {
      name: 'weather',
      description: 'The "current" weather',
      endpoint: 'https://api.example/w?q={query}',
      authHeader: 'X-Key',
      authToken: 'k$1',
    },
  ]),
  AGENT_PROMPT: "You are Holo.\nNever say 'I am an AI'.\n\tCost: $5, see ${DOCS} and $HOME.",
  WITH_ALL_BUT_ONE_QUOTE: "it's a `test` # not a comment",
  BACKSLASHES: 'C:\\dir\\n\\$x',
  SPACES: '  padded  ',
}

describe('worker vars written by the local stack', () => {
  let dir: string
  let worker: WorkerProcess

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-vars-'))
    writeFileSync(join(dir, 'worker.js'), 'export default { fetch: (request, env) => Response.json(env) }\n')
    writeFileSync(join(dir, 'wrangler.toml'), 'name = "vars-echo"\nmain = "worker.js"\ncompatibility_date = "2026-04-26"\n')
    worker = await startWorker({ vars: VARS, config: join(dir, 'wrangler.toml') })
  })

  afterAll(async () => {
    await worker?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('arrive in the Worker byte for byte', async () => {
    const env = (await (await fetch(`${worker.url}/`)).json()) as Record<string, unknown>
    for (const [name, value] of Object.entries(VARS)) expect(env[name], name).toBe(value)
    expect(JSON.parse(env.LLM_TOOLS_CONFIG as string)).toEqual(JSON.parse(VARS.LLM_TOOLS_CONFIG!))
  })

  it('refuses a value no quoting can carry, naming the variable', () => {
    expect(() => envFileLine('ODD', 'all \' ` " quotes')).toThrow(/^ODD: /)
    expect(() => envFileLine('CR', 'a\rb')).toThrow(/^CR: /)
    expect(() => envFileLine('TRAILING', 'ends with \\')).toThrow(/^TRAILING: /)
  })
})
