/**
 * Benchmark: our TypeScript AnonCreds engine (`shared/src/anoncreds`, through its `Anoncreds`
 * object) for a 5-attribute credential and a presentation revealing one attribute with one `>=`
 * predicate, against the wasm32 anoncreds build embedded in `@hyperledger/identus-sdk` in the
 * same process (same request shape; the wasm holds a credential signed with the same keys).
 *
 * Printed: credential definition creation as agent-node does it (keys made in worker threads by
 * `CredentialKeyWorkers`, then the engine's `createCredentialDefinition` takes them; median of 5,
 * with a progress line per step and the event-loop delay p99 meanwhile, from
 * `perf_hooks.monitorEventLoopDelay`), cold (both safe primes searched) and warm (taken from the
 * reserve of safe primes, refilled untimed before each creation), and for contrast two creations
 * on the event loop (the engine alone); createCredential, createPresentation and
 * verifyPresentation (medians over `ANONCREDS_BENCH_RUNS`, default 20, after 2 warm-up runs) on each
 * arithmetic the engine has (`useNativeArithmetic`), call by call alternately: GMP through its
 * addon (as agent-node runs when `npm run build:native` built it; left out, with a note, when it
 * did not), OpenSSL's exponentiation for the variable factors on BigInt (agent-node without the
 * addon), BigInt alone (as workerd runs); createPresentation /
 * verifyPresentation on the wasm build, and the ratios ours / wasm; one BigInt 2,050-bit
 * multiplication and reduction (the unit of the engine's costs); one BN254 pairing (what
 * revocation verification is made of: eight double pairings per sub-proof); one 1,025-bit safe
 * prime from our search (`generateSafePrime`, what the key workers run) and from OpenSSL's
 * `generatePrimeSync(1025, { safe: true })`, alternately (`PRIME_RUNS` each, after one warm-up
 * call of each, which builds our sieve table). Every timed call is
 * reported as wall time and as the process's CPU time (`process.cpuUsage`), which a shared,
 * loaded machine inflates less. JSON parsing is outside the timed calls on both sides.
 * Targets: verify <= 20 ms, present <= 20 ms, faster than the wasm build; creation <= 2 s.
 */
import { generatePrimeSync } from 'node:crypto'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { ObjectHandle } from '@hyperledger/anoncreds-shared'
import { CredentialKeyWorkers } from '../agent-node/src/anoncreds-registry/key-generation/CredentialKeyWorkers.ts'
import { credentialKeyAttributeNames } from '../shared/src/anoncreds/lib/index.ts'
import { createAnoncredsEngine } from '../shared/src/anoncreds/lib/index.ts'
import { SAFE_PRIME_BITS } from '../shared/src/anoncreds/issuance/index.ts'
import {
  generateSafePrime,
  gmpArithmetic,
  type MulMod,
  type NativeArithmetic,
  opensslPower,
  randomBits,
} from '../shared/src/anoncreds/math/index.ts'
import { useNativeArithmetic } from '../shared/src/anoncreds/proof/index.ts'
import { G1, G2, pair, R } from '../shared/src/anoncreds/revocation/index.ts'
import { type Json, loadIdentusAnoncreds } from '@parley/shared/testing/anoncreds/identus'
import { ms, summarize, type LatencySummary } from './stats.ts'

const RUNS = Number(process.env.ANONCREDS_BENCH_RUNS ?? 20)
const KEY_RUNS = 5
const PRIME_RUNS = 20
const BLOCKING_KEY_RUNS = 2
const WARMUP = 2
const TARGET_VERIFY_MS = 20
const TARGET_PRESENT_MS = 20
const TARGET_KEYS_MS = 2_000

const RAW: Record<string, string> = { name: 'Alice Jones', age: '28', email: 'alice@example.com', country: 'NL', height: '175' }
const ISSUER_ID = 'did:web:bench-issuer.example'
const SCHEMA_ID = `${ISSUER_ID}/anoncreds/schema/person/1.0`
const CRED_DEF_ID = `${ISSUER_ID}/anoncreds/credential-definition/person/default`

/** The engine's arithmetic backends, as `useNativeArithmetic` takes them. */
type Arithmetic = 'gmp' | 'openssl' | 'bigint'
const ARITHMETIC_LABELS: Record<Arithmetic, string> = { gmp: 'GMP', openssl: 'OpenSSL pow', bigint: 'BigInt' }

/** Wall and CPU timings (ms) of one sample series. */
interface Samples {
  wall: number[]
  cpu: number[]
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Timings of `runs` calls of each variant after `warmup` untimed ones, the variants called in
 * turn (a, b, a, b, …) so that both see the same load; `before` runs untimed before each call.
 */
function timeAlternately<K extends string>(
  runs: number,
  warmup: number,
  variants: Record<K, { before: () => void; fn: () => unknown }>,
): Record<K, Samples> {
  const names = Object.keys(variants) as K[]
  const samples = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [] }])) as unknown as Record<K, Samples>
  for (let i = 0; i < warmup + runs; i++) {
    for (const name of names) {
      const { before, fn } = variants[name]
      before()
      const start = performance.now()
      const cpu = cpuMs()
      fn()
      if (i < warmup) continue
      samples[name].cpu.push(cpuMs() - cpu)
      samples[name].wall.push(performance.now() - start)
    }
  }
  return samples
}

/** Timings of `runs` calls of `fn` after `warmup` untimed calls. */
function time(runs: number, warmup: number, fn: () => unknown): Samples {
  return timeAlternately(runs, warmup, { only: { before: () => {}, fn } }).only
}

/** CPU time (µs) of one 2,050-bit BigInt multiplication and reduction `a * b % n`, the unit of the engine's costs. */
function multiplicationMicros(mulMod: MulMod = (x, y, n) => (x * y) % n): number {
  const n = randomBits(2050) | (1n << 2049n) | 1n
  let a = randomBits(2049) % n
  const b = randomBits(2049) % n
  const count = 20_000
  const cpu = cpuMs()
  for (let i = 0; i < count; i++) a = mulMod(a, b, n)
  return ((cpuMs() - cpu) / count) * 1000
}

/** Wall time of `fn` and the event-loop delay p99 (ms) while it ran. */
async function withLoopDelay(fn: () => Promise<unknown>): Promise<{ wall: number; delayP99: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const start = performance.now()
  await fn()
  const wall = performance.now() - start
  delay.disable()
  return { wall, delayP99: delay.percentile(99) / 1e6 }
}

/** One 1,025-bit safe prime per sample: our search and OpenSSL's, one after the other. */
function safePrimeSamples(): Record<'ours' | 'openssl', Samples> {
  return timeAlternately(PRIME_RUNS, 1, {
    ours: { before: () => {}, fn: () => generateSafePrime(SAFE_PRIME_BITS) },
    openssl: { before: () => {}, fn: () => generatePrimeSync(SAFE_PRIME_BITS, { safe: true, bigint: true }) },
  })
}

/** One optimal-ate pairing on AMCL's BN254 of random points, per sample. */
function pairingSamples(): Samples {
  const scalar = () => (randomBits(256) % (R - 1n)) + 1n
  const points = Array.from({ length: RUNS + WARMUP }, () => [G1.BASE.multiply(scalar()), G2.BASE.multiply(scalar())] as const)
  let i = 0
  return time(RUNS, WARMUP, () => {
    const [p, q] = points[i++]!
    return pair(p, q)
  })
}

/** A summary of wall times and one of CPU times (ms). */
export interface TimedSummary {
  wall: LatencySummary
  cpu: LatencySummary
}

const summarizeSamples = (s: Samples): TimedSummary => ({ wall: summarize(s.wall), cpu: summarize(s.cpu) })

/** Figures of one benchmark run (ms). */
export interface AnoncredsBenchResult {
  /**
   * Credential definitions as agent-node makes them (worker threads): `cold` searches both safe
   * primes, `warm` takes them from a filled reserve; `blocking` on the event loop.
   */
  keys: Record<'cold' | 'warm' | 'blocking', { wall: LatencySummary; eventLoopDelayP99: LatencySummary }>
  /**
   * Issuing, presenting and verifying on each arithmetic, measured alternately: GMP (agent-node,
   * when the addon is built; absent otherwise), OpenSSL's exponentiation on BigInt (agent-node
   * without the addon), BigInt alone (workerd).
   */
  arithmetic: Partial<Record<Arithmetic, Record<'createCredential' | 'createPresentation' | 'verifyPresentation', TimedSummary>>>
  wasm: Record<'createPresentation' | 'verifyPresentation', TimedSummary>
  revocation: Record<'pairing', TimedSummary>
  /** One 1,025-bit safe prime: `generateSafePrime` against OpenSSL's `generatePrimeSync`. */
  safePrime: Record<'ours' | 'openssl', TimedSummary>
  /** CPU µs of one 2,050-bit `a * b % n` in BigInt. */
  multiplicationMicros: number
  /** The same through the GMP addon's `mulMod` (one Node-API call each), when it is built. */
  gmpMultiplicationMicros?: number
}

/** Runs the measurements and returns the summaries (no printing). */
export async function anoncredsBench(): Promise<AnoncredsBenchResult> {
  const engine = createAnoncredsEngine()
  const identus = await loadIdentusAnoncreds()
  const wasm = identus.wasm
  const json = (handle: ObjectHandle): Json => JSON.parse(engine.getJson({ objectHandle: handle })) as Json

  // ---- issuer keys (ours): in worker threads as agent-node makes them, then on the event loop ----
  const schema = engine.createSchema({ name: 'person', version: '1.0', issuerId: ISSUER_ID, attributeNames: Object.keys(RAW) })
  const createDefinition = () =>
    engine.createCredentialDefinition({
      schemaId: SCHEMA_ID,
      schema,
      tag: 'default',
      issuerId: ISSUER_ID,
      signatureType: 'CL',
      supportRevocation: false,
    })
  const attributeNames = credentialKeyAttributeNames(Object.keys(RAW))
  let keys: ReturnType<typeof createDefinition> | undefined
  const workerRuns = async (label: 'cold' | 'warm', workers: CredentialKeyWorkers) => {
    const runs: Array<{ wall: number; delayP99: number }> = []
    for (let run = 1; run <= KEY_RUNS; run++) {
      if (label === 'warm') await workers.fillReserve() // untimed: the reserve filled in the background
      runs.push(
        await withLoopDelay(async () => {
          const made = await workers.generate(attributeNames, ({ step, source, done, total, elapsedMs }) =>
            console.log(
              `  credential definition ${run}/${KEY_RUNS} (worker threads, ${label}): ${step} ready (${done}/${total})${source === 'reserve' ? ' from the reserve' : ''} after ${(elapsedMs / 1000).toFixed(1)} s`,
            ),
          )
          engine.preparedKeys.add(attributeNames, made)
          keys = createDefinition()
        }),
      )
    }
    await workers.close()
    return runs
  }
  const coldRuns = await workerRuns('cold', new CredentialKeyWorkers())
  const warmRuns = await workerRuns('warm', new CredentialKeyWorkers({ reserve: 2 }))
  const blockingRuns: Array<{ wall: number; delayP99: number }> = []
  for (let run = 1; run <= BLOCKING_KEY_RUNS; run++) {
    console.log(`  credential definition ${run}/${BLOCKING_KEY_RUNS} on the event loop (for contrast)`)
    // a timer tick first, so the delay histogram sees the blocked loop
    blockingRuns.push(
      await withLoopDelay(async () => {
        await new Promise((resolve) => setTimeout(resolve, 10))
        createDefinition()
        await new Promise((resolve) => setTimeout(resolve, 10))
      }),
    )
  }
  const { credentialDefinition, credentialDefinitionPrivate, keyCorrectnessProof } = keys!
  const offer = engine.createCredentialOffer({ schemaId: SCHEMA_ID, credentialDefinitionId: CRED_DEF_ID, keyCorrectnessProof })

  // ---- our holder: request, signing (timed on each arithmetic), processing ----
  const openssl = opensslPower()
  if (!openssl) throw new Error("this Node has no OpenSSL exponentiation (process.getBuiltinModule('node:crypto'))")
  const gmp = gmpArithmetic()
  if (!gmp) console.log('  GMP addon not built (npm run build:native): its rows are left out')
  const arithmetics: Partial<Record<Arithmetic, NativeArithmetic | undefined>> = {
    ...(gmp ? { gmp } : {}),
    openssl: { power: openssl },
    bigint: undefined,
  }
  const variants = (fn: () => unknown) =>
    Object.fromEntries(
      Object.entries(arithmetics).map(([name, arithmetic]) => [name, { before: () => useNativeArithmetic(arithmetic), fn }]),
    ) as Record<Arithmetic, { before: () => void; fn: () => unknown }>
  const linkSecret = engine.createLinkSecret()
  const { credentialRequest, credentialRequestMetadata } = engine.createCredentialRequest({
    entropy: engine.generateNonce(),
    credentialDefinition,
    linkSecret,
    linkSecretId: 'default',
    credentialOffer: offer,
  })
  let issued: ObjectHandle | undefined
  const signSamples = timeAlternately(
    RUNS,
    WARMUP,
    variants(() => {
      if (issued) engine.objectFree({ objectHandle: issued })
      issued = engine.createCredential({
        credentialDefinition,
        credentialDefinitionPrivate,
        credentialOffer: offer,
        credentialRequest,
        attributeRawValues: RAW,
      })
    }),
  )
  const credential = engine.processCredential({ credential: issued!, credentialRequestMetadata, linkSecret, credentialDefinition })

  // ---- presentation request: name revealed, age >= 18 ----
  const requestJson: Json = {
    nonce: engine.generateNonce(),
    name: 'bench',
    version: '1.0',
    requested_attributes: { attr_name: { name: 'name' } },
    requested_predicates: { pred_age: { name: 'age', p_type: '>=', p_value: 18 } },
  }
  const presentationRequest = engine.presentationRequestFromJson({ json: JSON.stringify(requestJson) })
  const present = () =>
    engine.createPresentation({
      presentationRequest,
      credentials: [{ credential }],
      credentialsProve: [
        { entryIndex: 0, referent: 'attr_name', isPredicate: false, reveal: true },
        { entryIndex: 0, referent: 'pred_age', isPredicate: true, reveal: true },
      ],
      selfAttest: {},
      linkSecret,
      schemas: { [SCHEMA_ID]: schema },
      credentialDefinitions: { [CRED_DEF_ID]: credentialDefinition },
    })
  let presentation: ObjectHandle | undefined
  const presentAndKeep = () => {
    if (presentation) engine.objectFree({ objectHandle: presentation })
    presentation = present()
  }
  const presentSamples = timeAlternately(RUNS, WARMUP, variants(presentAndKeep))
  const verify = () =>
    engine.verifyPresentation({
      presentation: presentation!,
      presentationRequest,
      schemas: [schema],
      schemaIds: [SCHEMA_ID],
      credentialDefinitions: [credentialDefinition],
      credentialDefinitionIds: [CRED_DEF_ID],
    })
  for (const arithmetic of Object.values(arithmetics)) {
    useNativeArithmetic(arithmetic)
    if (!verify()) throw new Error('our verifier refused our own presentation')
  }
  const verifySamples = timeAlternately(RUNS, WARMUP, variants(verify))
  useNativeArithmetic(gmp ?? arithmetics.openssl)

  // ---- the wasm build: an identus holder with a credential signed by our keys ----
  const credDefJson = json(credentialDefinition)
  const schemaJson = json(schema)
  const offerJson = json(offer)
  const wasmLinkSecret = identus.createLinkSecret()
  const wasmRequest = identus.createCredentialRequest({
    credentialDefinition: credDefJson,
    linkSecret: wasmLinkSecret,
    linkSecretId: 'default',
    credentialOffer: offerJson,
  })
  const wasmIssued = engine.createCredential({
    credentialDefinition,
    credentialDefinitionPrivate,
    credentialOffer: offer,
    credentialRequest: engine.credentialRequestFromJson({ json: JSON.stringify(wasmRequest.credentialRequest) }),
    attributeRawValues: RAW,
  })
  const wasmCredentialJson = identus.processCredential({
    credential: json(wasmIssued),
    credentialRequestMetadata: wasmRequest.credentialRequestMetadata,
    linkSecret: wasmLinkSecret,
    credentialDefinition: credDefJson,
  })
  const wasmCredential = wasm.Credential.from(wasmCredentialJson)
  const wasmLink = wasm.LinkSecret.fromString(wasmLinkSecret)
  const schemas = { [SCHEMA_ID]: schemaJson }
  const credDefs = { [CRED_DEF_ID]: credDefJson }
  let wasmPresentation: ReturnType<typeof wasm.Prover.createPresentation> | undefined
  const wasmPresentSamples = time(RUNS, WARMUP, () => {
    wasmPresentation?.free()
    // the glue consumes the request object, so a fresh one is built per call (a cheap parse)
    wasmPresentation = wasm.Prover.createPresentation(
      wasm.PresentationRequest.from(requestJson),
      wasmCredential,
      wasmLink,
      schemas,
      credDefs,
    )
  })
  const wasmPresentationRequest = wasm.PresentationRequest.from(requestJson)
  const wasmVerify = () => wasm.Verifier.verifyPresentation(wasmPresentation!, wasmPresentationRequest, schemas, credDefs)
  if (!wasmVerify()) throw new Error('the wasm verifier refused its own presentation')
  const wasmVerifySamples = time(RUNS, WARMUP, wasmVerify)
  for (const object of [wasmPresentation!, wasmPresentationRequest, wasmCredential, wasmLink]) object.free()

  const keyFigures = (runs: Array<{ wall: number; delayP99: number }>) => ({
    wall: summarize(runs.map((r) => r.wall)),
    eventLoopDelayP99: summarize(runs.map((r) => r.delayP99)),
  })
  return {
    keys: { cold: keyFigures(coldRuns), warm: keyFigures(warmRuns), blocking: keyFigures(blockingRuns) },
    arithmetic: Object.fromEntries(
      Object.keys(presentSamples).map((name) => [
        name,
        {
          createCredential: summarizeSamples(signSamples[name as Arithmetic]),
          createPresentation: summarizeSamples(presentSamples[name as Arithmetic]),
          verifyPresentation: summarizeSamples(verifySamples[name as Arithmetic]),
        },
      ]),
    ),
    wasm: { createPresentation: summarizeSamples(wasmPresentSamples), verifyPresentation: summarizeSamples(wasmVerifySamples) },
    revocation: { pairing: summarizeSamples(pairingSamples()) },
    safePrime: (({ ours, openssl }) => ({ ours: summarizeSamples(ours), openssl: summarizeSamples(openssl) }))(safePrimeSamples()),
    multiplicationMicros: multiplicationMicros(),
    gmpMultiplicationMicros: gmp?.mulMod && multiplicationMicros(gmp.mulMod),
  }
}

/** `npm run bench -- anoncreds`: prints the figures, the ratios ours / wasm and the targets. */
export async function runAnoncreds(): Promise<void> {
  const r = await anoncredsBench()
  const row = (label: string, s: TimedSummary, extra = '') =>
    console.log(
      `${label.padEnd(36)} p50 ${ms(s.wall.p50).padStart(11)}  p99 ${ms(s.wall.p99).padStart(11)}  cpu p50 ${ms(s.cpu.p50).padStart(11)}  (n=${s.wall.n})${extra}`,
    )
  const ratio = (ours: TimedSummary, wasm: TimedSummary) => `  ours/wasm ${(ours.wall.p50 / wasm.wall.p50).toFixed(2)}x`
  const target = (s: TimedSummary, limit: number) =>
    `  target <= ${limit} ms: ${s.wall.p50 <= limit ? 'met' : 'MISSED'} (cpu ${s.cpu.p50 <= limit ? 'met' : 'missed'})`
  const keyRow = (label: string, k: AnoncredsBenchResult['keys']['cold'], extra = '') =>
    console.log(
      `${label.padEnd(36)} p50 ${ms(k.wall.p50).padStart(11)}  max ${ms(k.wall.p99).padStart(11)}  event-loop delay p99 (median of runs) ${ms(k.eventLoopDelayP99.p50)}, worst ${ms(k.eventLoopDelayP99.p99)}  (n=${k.wall.n})${extra}`,
    )
  console.log('5-attribute credential; presentation: 1 revealed attribute + 1 >= predicate; no revocation')
  const keyTarget = (k: AnoncredsBenchResult['keys']['cold']) =>
    `  target <= ${TARGET_KEYS_MS} ms: ${k.wall.p50 <= TARGET_KEYS_MS ? 'met' : 'MISSED'}`
  keyRow('ours credential definition (cold)', r.keys.cold, keyTarget(r.keys.cold))
  keyRow('ours credential definition (reserve)', r.keys.warm, keyTarget(r.keys.warm))
  keyRow('ours credential definition (blocking)', r.keys.blocking)
  for (const [name, figures] of Object.entries(r.arithmetic))
    row(`ours createCredential (${ARITHMETIC_LABELS[name as Arithmetic]})`, figures.createCredential)
  for (const [name, figures] of Object.entries(r.arithmetic)) {
    for (const call of ['createPresentation', 'verifyPresentation'] as const) {
      const limit = call === 'createPresentation' ? TARGET_PRESENT_MS : TARGET_VERIFY_MS
      row(
        `ours ${call} (${ARITHMETIC_LABELS[name as Arithmetic]})`,
        figures[call],
        ratio(figures[call], r.wasm[call]) + target(figures[call], limit),
      )
    }
  }
  row('identus wasm createPresentation', r.wasm.createPresentation)
  row('identus wasm verifyPresentation', r.wasm.verifyPresentation)
  row('ours BN254 pairing (revocation)', r.revocation.pairing)
  const prime = (label: string, s: LatencySummary) => `${label} median ${ms(s.p50)}, mean ${ms(s.mean)}, max ${ms(s.p99)}`
  console.log(
    `safe prime (${SAFE_PRIME_BITS} bits), CPU (n=${r.safePrime.ours.cpu.n} each, alternately): ${prime('ours', r.safePrime.ours.cpu)}; ${prime('OpenSSL generatePrimeSync', r.safePrime.openssl.cpu)}; ours/OpenSSL mean ${(r.safePrime.ours.cpu.mean / r.safePrime.openssl.cpu.mean).toFixed(2)}x`,
  )
  const gmpUnit = r.gmpMultiplicationMicros === undefined ? '' : `; GMP mulMod: ${r.gmpMultiplicationMicros.toFixed(2)} µs CPU`
  console.log(`BigInt 2,050-bit a * b % n: ${r.multiplicationMicros.toFixed(2)} µs CPU${gmpUnit}`)
}
