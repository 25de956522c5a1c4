/**
 * `npm run build:native [-- --required]`: compiles the AnonCreds engine's GMP addon
 * (`shared/native/gmp-arithmetic/`) into `shared/native/gmp-arithmetic/build/gmp_arithmetic.node`,
 * then loads it once to check it. `npm ci` runs it (the root package's `postinstall`).
 *
 * The addon uses Node-API only, so it compiles against the `node-api-headers` package (no Node
 * source headers, no node-gyp) with the system's C compiler (`$CC`, default `cc`) and GMP
 * (Debian: `gcc libgmp-dev`). Without them the engine runs on BigInt, with OpenSSL's
 * exponentiation, as before: the script says so and exits 0, or 1 with `--required` (the
 * container image's build, `.ci/run`).
 */
import { execFile } from 'node:child_process'
import { mkdir, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gmpAddonFile } from '@parley/shared/anoncreds/math'

/** The repository's root. */
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SOURCE = join(ROOT, 'shared/native/gmp-arithmetic/gmp_arithmetic.c')
/** Where `shared/src/anoncreds/math/gmp-arithmetic.ts` looks for it. */
const GMP_ADDON = fileURLToPath(gmpAddonFile())

const require = createRequire(import.meta.url)

/** The compiler's command line for `output` (Linux and macOS: a shared object that Node loads). */
function compileArguments(output: string): string[] {
  const headers = join(dirname(require.resolve('node-api-headers/package.json')), 'include')
  const platform = process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : []
  return ['-O2', '-fPIC', '-shared', '-Wall', '-Wextra', `-I${headers}`, ...platform, SOURCE, '-lgmp', '-o', output]
}

async function main(): Promise<void> {
  const required = process.argv.includes('--required')
  const compiler = process.env.CC || 'cc'
  const started = performance.now()
  const shown = relative(ROOT, GMP_ADDON)
  console.log(`building the GMP addon for AnonCreds proofs (${shown}) with ${compiler}`)
  const partial = GMP_ADDON.replace(/\.node$/, '.partial.node')
  try {
    await mkdir(dirname(GMP_ADDON), { recursive: true })
    await promisify(execFile)(compiler, compileArguments(partial))
    // a build that does not load (or multiplies wrongly) is no build
    const addon = require(partial) as { mulMod(a: bigint, b: bigint, n: bigint): bigint }
    if (addon.mulMod(6n, 7n, 11n) !== 9n) throw new Error('the addon loaded but computed 6 * 7 mod 11 wrongly')
    await rename(partial, GMP_ADDON)
    console.log(`built ${shown} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  } catch (error) {
    await rm(partial, { force: true })
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message
    console.error(
      [
        `the GMP addon was not built: ${detail.split('\n').slice(0, 6).join('\n  ')}`,
        'AnonCreds presentations and verifications run on BigInt instead (about 3x slower; bench/README.md "anoncreds").',
        "To build it: install a C compiler and GMP's headers (Debian: apt-get install gcc libgmp-dev), then run npm run build:native.",
      ].join('\n'),
    )
    process.exitCode = required ? 1 : 0
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
