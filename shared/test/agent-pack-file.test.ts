import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadAgentPackFile } from '../src/agent-pack/node/index.ts'

describe('loadAgentPackFile', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-pack-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('prefers agent-pack.yaml, then .yml, then .json', async () => {
    await writeFile(join(dir, 'agent-pack.json'), '{}')
    expect(await loadAgentPackFile(dir)).toEqual({ path: join(dir, 'agent-pack.json'), text: '{}' })
    await writeFile(join(dir, 'agent-pack.yml'), 'yml: 1')
    expect(await loadAgentPackFile(dir)).toEqual({ path: join(dir, 'agent-pack.yml'), text: 'yml: 1' })
    await writeFile(join(dir, 'agent-pack.yaml'), 'yaml: 1')
    expect(await loadAgentPackFile(dir)).toEqual({ path: join(dir, 'agent-pack.yaml'), text: 'yaml: 1' })
  })

  it('returns undefined for a directory without a manifest and for a missing directory', async () => {
    await writeFile(join(dir, 'other.yaml'), 'x: 1')
    expect(await loadAgentPackFile(dir)).toBeUndefined()
    expect(await loadAgentPackFile(join(dir, 'nowhere'))).toBeUndefined()
  })

  it('throws when a manifest path exists but cannot be read as a file', async () => {
    await mkdir(join(dir, 'agent-pack.yaml'))
    await expect(loadAgentPackFile(dir)).rejects.toThrow()
  })
})
