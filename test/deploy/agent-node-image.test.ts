/**
 * The deployment files are real: `agent-node/Dockerfile` is built with podman, and agent-node is
 * started from the image's files (chroot on `podman image mount`, as the image's user, with its
 * environment, working folder and command) on a PostgreSQL database as `compose.yaml` wires it;
 * it answers `/healthz`, the image's own HEALTHCHECK passes, its AnonCreds proofs run on the GMP
 * addon built into the image, and SIGTERM stops it cleanly.
 *
 * Slow (a first build makes a Debian base image with debootstrap, then installs agent-node's
 * dependencies): it runs when PARLEY_TEST_CONTAINER_IMAGE=1 (see vitest.config.ts; `.ci/run`
 * sets it when podman and debootstrap are installed).
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { freePort, ROOT } from '../../scripts/local-stack.ts'
import { usePostgresTestDatabase } from '@parley/agent-node/testing/temp-databases'
import { buildAgentNodeImage, ensureBaseImage, mountImage, type ImageConfig, type MountedImage } from '../support/container-image.ts'
import type { ChildProcess } from 'node:child_process'

const TAG = 'localhost/parley-agent-node:test'

interface ComposeFile {
  services: Record<
    string,
    {
      build?: { context: string; dockerfile: string }
      environment?: Record<string, string>
      ports?: string[]
      volumes?: string[]
      depends_on?: Record<string, unknown>
    }
  >
}

/**
 * A compose `environment` map with `${NAME}`, `${NAME:-default}` and `${NAME:?message}` replaced
 * from `dotenv`, as `docker compose` interpolates it. @throws when a `:?` variable is missing.
 */
function composeEnvironment(environment: Record<string, string>, dotenv: Record<string, string>): Record<string, string> {
  const interpolate = (value: string) =>
    value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
      const found = dotenv[name]
      if (found) return found
      if (kind === '?') throw new Error(`compose.yaml needs ${name}: ${rest}`)
      return kind === '-' ? (rest ?? '') : ''
    })
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolate(String(value))]))
}

/** Resolves when `child` exits. @returns its exit code (null when killed by a signal). */
function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

describe('agent-node container image', () => {
  const database = usePostgresTestDatabase()
  const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as ComposeFile
  let config: ImageConfig
  let mounted: MountedImage
  let agent: ChildProcess
  let output = ''
  let adminUrl: string

  beforeAll(async () => {
    let started = performance.now()
    await ensureBaseImage()
    const baseSeconds = (performance.now() - started) / 1000
    started = performance.now()
    const built = await buildAgentNodeImage(TAG)
    console.info(
      `container image: base ${baseSeconds.toFixed(0)} s, agent-node build ${((performance.now() - started) / 1000).toFixed(0)} s, size ${(built.sizeBytes / 1e6).toFixed(0)} MB`,
    )
    config = built.config
    mounted = await mountImage(TAG, config)
  }, 900_000)

  afterAll(async () => {
    if (agent && agent.exitCode === null) {
      agent.kill('SIGKILL')
      await exited(agent)
    }
    await mounted?.unmount()
  })

  it('compose.yaml builds this Dockerfile and gives it PostgreSQL, a data volume and a private admin port', () => {
    const service = compose.services['agent-node']!
    expect(service.build).toEqual({ context: '.', dockerfile: 'agent-node/Dockerfile' })
    expect(service.environment!.DATABASE_URL).toMatch(/^postgres:\/\/parley:\$\{POSTGRES_PASSWORD\}@postgres:5432\/parley$/)
    expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(service.volumes).toEqual(['agent-data:/data'])
    expect(service.ports).toContain('127.0.0.1:3000:3000')
    expect(compose.services.postgres!.volumes).toEqual(['postgres-data:/var/lib/postgresql/data'])
  })

  it('runs as a non-root user with a data volume, both ports and a health check', () => {
    expect(config.User).toBe('parley')
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/data'])
    expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual(['3000/tcp', '3001/tcp'])
    expect(config.Healthcheck?.Test[0]).toBe('CMD')
    expect(config.Env).toContain('NODE_ENV=production')
  })

  it("starts agent-node from the image with compose.yaml's environment on PostgreSQL: /healthz and /readyz answer, the HEALTHCHECK passes", async () => {
    const adminPort = String(await freePort())
    const publicPort = String(await freePort())
    adminUrl = `http://127.0.0.1:${adminPort}`
    // compose.yaml's environment for agent-node, interpolated from a `.env` as compose does, then
    // this machine's PostgreSQL in place of the `postgres` service (an image from a registry this
    // machine cannot reach) and free ports in place of 3000/3001 (no port mapping in a chroot)
    const environment = composeEnvironment(compose.services['agent-node']!.environment!, {
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      POSTGRES_PASSWORD: 'unused',
      PUBLIC_API_BASE_URL: `http://127.0.0.1:${publicPort}`,
    })
    expect(environment.DATABASE_URL).toBe('postgres://parley:unused@postgres:5432/parley')
    agent = mounted.spawn(config.Cmd, {
      ...environment,
      DATABASE_URL: database.url,
      ADMIN_HOST: '127.0.0.1',
      ADMIN_PORT: adminPort,
      PUBLIC_PORT: publicPort,
    })
    agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))

    let healthy = false
    for (let i = 0; i < 300 && !healthy && agent.exitCode === null; i++) {
      healthy = await fetch(`${adminUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(healthy, `agent-node did not answer /healthz:\n${output.slice(-3000)}`).toBe(true)
    const ready = await fetch(`${adminUrl}/readyz`)
    expect(await ready.json()).toMatchObject({ ready: true, checks: { database: { ok: true } } })

    const check = mounted.spawn(config.Healthcheck!.Test.slice(1), { ADMIN_PORT: adminPort })
    expect(await exited(check)).toBe(0)
  })

  it('runs AnonCreds proofs on GMP: the start-up line names the addon built into the image', async () => {
    for (let i = 0; i < 100 && !output.includes('"anoncredsArithmetic"'); i++) await new Promise((resolve) => setTimeout(resolve, 200))
    expect(output, output.slice(-3000)).toContain('"anoncredsArithmetic":"gmp"')
  })

  it('stops cleanly on SIGTERM', async () => {
    agent.kill('SIGTERM')
    expect(await exited(agent)).toBe(0)
    expect(output).toContain('"msg":"stopping"')
  })
})
