/**
 * The production build of agent-node (issue 16, "Start-up and size"): `npm run build` bundles
 * `src/main.ts` with esbuild into `dist/main.mjs`, and the key-generation worker thread
 * (`src/anoncreds-registry/key-generation/worker.ts`) into `dist/worker.mjs`, where
 * `CredentialKeyWorkers` looks for it beside the running module, as `BackgroundCheckpoints` looks
 * for the WAL checkpoint thread (`src/database/checkpoint-worker.mjs`, `dist/checkpoint-worker.mjs`). Run with
 * `node --enable-source-maps dist/main.mjs` (the Dockerfile does): the process then loads one
 * precompiled file instead of tsx compiling and Node linking some 4,000 TypeScript and ESM
 * modules, and answers on both ports in 0.9–1.1 s instead of 2.5–2.9 s on the 2-core build
 * machine (bench/README.md "startup").
 *
 * One ES module per entry, no code splitting: esbuild keeps the order in which the source's ES
 * modules evaluate (the AnonCreds engine registered first, `main.ts`), CommonJS packages run when
 * first required, as under Node. Packages that find files of their own beside their code at run
 * time stay outside the bundle and load from `node_modules` (`EXTERNAL`); so do the optional
 * native add-ons some packages try and do without (`pg-native`, `bufferutil`...), as under Node.
 * The source maps carry positions only (no source text) and only for Parley's own code (`ownCodeOnly`):
 * enough for `--enable-source-maps` to put the TypeScript file and line in stack traces.
 *
 * The AnonCreds engine's GMP addon, when built, is copied beside the bundle (`copyGmpAddon`).
 *
 * Usage: `npm run build` (root or agent-node), or `buildAgentNode()` from a script.
 */
import { existsSync } from 'node:fs'
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec'
import { build, type BuildResult, type Plugin } from 'esbuild'
import { gmpAddonFile } from '@parley/shared/anoncreds/math'

/** agent-node's package folder. */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))

/** Where the build goes: `agent-node/dist/` (ignored by git and Biome). */
const DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url))

/**
 * Loaded from `node_modules` at run time: piscina starts its worker threads from its own
 * `worker.js`, libsql finds its native binary beside its code.
 */
const EXTERNAL = ['piscina', 'libsql']

/** `shared`'s module that registers the AnonCreds engine (see its comment). */
const REGISTER_NODE = fileURLToPath(new URL('../../shared/src/anoncreds/lib/register-node.ts', import.meta.url))

/**
 * `register-node.ts` reaches `@hyperledger/anoncreds-shared` through `createRequire`, so that
 * under Node it gets the CommonJS instance rather than an ESM copy of its exports. esbuild does
 * not follow such a `require`: the bundle would register the engine with a second copy of the
 * package, read from `node_modules`, and `@credo-ts/anoncreds` (bundled) would never see it. In
 * the bundle there is only one instance, whose exports `@credo-ts/anoncreds` reads when it uses
 * them, so this plugin gives that module a `createRequire` that returns the bundled package.
 */
const bundledAnoncredsShared: Plugin = {
  name: 'parley-bundled-anoncreds-shared',
  setup(build) {
    build.onResolve({ filter: /^node:module$/ }, (args) =>
      args.importer === REGISTER_NODE ? { path: 'node:module', namespace: 'parley-anoncreds-shared' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'parley-anoncreds-shared' }, () => ({
      resolveDir: dirname(REGISTER_NODE),
      contents: `import * as anoncredsShared from '@hyperledger/anoncreds-shared'
export function createRequire() {
  return (id) => {
    if (id !== '@hyperledger/anoncreds-shared') throw new Error('register-node.ts requires only @hyperledger/anoncreds-shared in the bundle, not ' + id)
    return anoncredsShared
  }
}`,
    }))
  },
}

/** The source map of a bundle, as esbuild writes it (version 3). */
interface SourceMap {
  sources: string[]
  mappings: string
}

/**
 * `map` with the positions of code from `node_modules` dropped: each stretch of such code starts
 * with a segment that maps to nothing, so stack frames there keep their bundle position and name.
 * Node 20 decodes the whole map of a module the first time it formats a stack trace through it,
 * into one array per segment: for the full map of `main.mjs` (11 MB, nearly all of it packages)
 * that was about 260 MB of memory kept for the life of the process, after the first logged error.
 */
function ownCodeOnly(map: SourceMap): SourceMap {
  const foreign = map.sources.map((source) => source.includes('node_modules/'))
  let unmapped = false
  const lines = decode(map.mappings).map((segments) =>
    segments.flatMap((segment): SourceMapSegment[] => {
      const isForeign = segment.length > 1 && foreign[segment[1]!]
      if (!isForeign) {
        unmapped = segment.length === 1
        return [segment]
      }
      if (unmapped) return []
      unmapped = true
      return [[segment[0]]]
    }),
  )
  return { ...map, mappings: encode(lines) }
}

/**
 * Builds `dist/main.mjs`, `dist/worker.mjs` and `dist/checkpoint-worker.mjs` (with their `.map` files, `ownCodeOnly`), replacing
 * what was there.
 * @throws esbuild's error when the build fails (its messages are logged first).
 */
export async function buildAgentNode(): Promise<BuildResult> {
  const result = await build({
    absWorkingDir: PACKAGE_DIR,
    entryPoints: {
      main: 'src/main.ts',
      worker: 'src/anoncreds-registry/key-generation/worker.ts',
      'checkpoint-worker': 'src/database/checkpoint-worker.mjs',
    },
    outdir: DIST_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external: EXTERNAL,
    // CommonJS packages inside an ES module bundle still call `require` (Node's built-ins, the
    // packages above, optional add-ons): give the bundle one, resolving from where it lies
    banner: {
      js: "import { createRequire as parleyCreateRequire } from 'node:module'; const require = parleyCreateRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [bundledAnoncredsShared],
    metafile: true,
  })
  for (const file of Object.keys(result.metafile.outputs).filter((name) => name.endsWith('.map'))) {
    const path = `${PACKAGE_DIR}${file}`
    await writeFile(path, JSON.stringify(ownCodeOnly(JSON.parse(await readFile(path, 'utf8')) as SourceMap)))
  }
  await copyGmpAddon()
  return result
}

/**
 * Puts the AnonCreds engine's GMP addon beside the bundle, where `gmp-arithmetic.ts` looks for it
 * (`npm run build:native` makes it), or removes a stale copy when it was not built: the bundle
 * then runs its proofs on BigInt.
 */
async function copyGmpAddon(): Promise<void> {
  const addon = gmpAddonFile()
  const target = `${DIST_DIR}${basename(fileURLToPath(addon))}`
  if (existsSync(addon)) await copyFile(addon, target)
  else {
    await rm(target, { force: true })
    console.log('the GMP addon is not built (npm run build:native): the bundle runs AnonCreds proofs on BigInt')
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now()
  await buildAgentNode()
  console.log(`agent-node built into ${DIST_DIR} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}
