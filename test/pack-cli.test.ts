/**
 * The agent-pack tools a pack author runs: `npm run pack -- check|schema` (scripts/pack.ts) and
 * the worker build step that bundles the pack (edge-worker/scripts/build-agent-pack.ts), which
 * must stop on a file that does not parse, naming the file and line.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MASK } from '@parley/shared/agent-pack'
import { ROOT } from '../scripts/local-stack.ts'
import { checkPack, writeSchema } from '../scripts/pack.ts'

const run = promisify(execFile)
const VENDOR_PACK = join(ROOT, 'shared/test/fixtures/agent-packs/vendor-spellings')

/** Runs a TypeScript script of the repository with `env` added; resolves with its exit code and output. */
async function runScript(script: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('npm run pack', () => {
  let broken: string

  beforeAll(() => {
    broken = mkdtempSync(join(tmpdir(), 'parley-broken-pack-'))
    writeFileSync(join(broken, 'agent-pack.yaml'), 'metadata:\n  id: broken\nllm:\n  model: [unclosed\n')
  })

  afterAll(() => rmSync(broken, { recursive: true, force: true }))

  it('check prints the resolved pack with secrets masked, and every warning', async () => {
    const result = await checkPack(VENDOR_PACK, {
      OPENAI_API_KEY: 'sk-very-secret',
      LIBRARY_DB_PASSWORD: 'db-very-secret',
      LIBRARY_LOANS_TOKEN: 'tok-very-secret',
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('provider: compat')
    expect(result.stdout).toContain('type: compat-image-legacy')
    expect(result.stdout).toContain(`apiKey: "${MASK}"`)
    expect(result.stdout).not.toMatch(/very-secret/)
    expect(result.stderr).toContain('warning: languages.es.welcomeMessage: deprecated, use greetingMessage\n')
    expect(result.stderr).toContain('warning: imageGeneration: valid, but not acted on by the edge yet; ignored\n')
    expect(result.stderr).not.toContain('warning: mcp: valid, but not acted on')
    expect(result.stderr).toMatch(/\n\d+ warnings\n$/)
    expect((await checkPack(VENDOR_PACK, {}, { strict: true })).exitCode).toBe(1)
  })

  it('check fails on a file that does not parse, with file and line, or on a missing pack', async () => {
    const parse = await checkPack(broken, {})
    expect(parse).toMatchObject({ exitCode: 1, stdout: '' })
    expect(parse.stderr).toMatch(new RegExp(`^error: ${join(broken, 'agent-pack.yaml')}:5:1: cannot be parsed: `))
    expect(await checkPack(join(broken, 'nowhere'), {})).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('no agent-pack.yaml'),
    })
  })

  it('schema --check finds the committed JSON Schema up to date', async () => {
    expect(await writeSchema({ check: true })).toMatchObject({ exitCode: 0 })
  })

  it('runs from the command line with the exit code of the check', async () => {
    const ok = await runScript('scripts/pack.ts', ['check'], {})
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('displayName: Parley Assistant')
    expect(ok.stderr).toBe('0 warnings\n')
    const bad = await runScript('scripts/pack.ts', ['check', broken], {})
    expect(bad.code).toBe(1)
    expect((await runScript('scripts/pack.ts', ['frobnicate'], {})).code).toBe(2)
  })

  it('the worker build fails on a file that does not parse, naming file and line', async () => {
    const build = await runScript('edge-worker/scripts/build-agent-pack.ts', [], { AGENT_PACK_PATH: broken })
    expect(build.code).toBe(1)
    expect(build.stderr).toContain(`agent pack: ${join(broken, 'agent-pack.yaml')}:5:1: cannot be parsed`)
  })
})
