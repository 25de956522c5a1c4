/**
 * Benchmark: our TypeScript AnonCreds engine (`shared/src/anoncreds`, through its `Anoncreds`
 * object) for a 5-attribute credential and a presentation revealing one attribute with one `>=`
 * predicate, against the wasm32 anoncreds build embedded in `@hyperledger/identus-sdk` in the
 * same process (same request shape; the wasm holds a credential signed with the same keys).
 *
 * Printed: createCredentialDefinition (median of 5), createCredential, createPresentation and
 * verifyPresentation (medians over `ANONCREDS_BENCH_RUNS`, default 20, after 2 warm-up runs);
 * createPresentation / verifyPresentation on the wasm build, and the ratios ours / wasm; and one
 * BN254 pairing (what revocation verification is made of: eight double pairings per sub-proof).
 * JSON parsing is outside the timed calls on both sides (objects are loaded once).
 * Targets: verify <= 50 ms, present <= 100 ms, and faster than the wasm build.
 */
import type { ObjectHandle } from '@hyperledger/anoncreds-shared'
import { createAnoncredsEngine } from '../shared/src/anoncreds/lib/index.ts'
import { randomBits } from '../shared/src/anoncreds/math/index.ts'
import { G1, G2, pair, R } from '../shared/src/anoncreds/revocation/index.ts'
import { type Json, loadIdentusAnoncreds } from '../shared/test/anoncreds/support/identus.ts'
import { ms, summarize, type LatencySummary } from './stats.ts'

const RUNS = Number(process.env.ANONCREDS_BENCH_RUNS ?? 20)
const KEY_RUNS = 5
const WARMUP = 2
const TARGET_VERIFY_MS = 50
const TARGET_PRESENT_MS = 100

const RAW: Record<string, string> = { name: 'Alice Jones', age: '28', email: 'alice@example.com', country: 'NL', height: '175' }
const ISSUER_ID = 'did:web:bench-issuer.example'
const SCHEMA_ID = `${ISSUER_ID}/anoncreds/schema/person/1.0`
const CRED_DEF_ID = `${ISSUER_ID}/anoncreds/credential-definition/person/default`

/** Timings (ms) of `runs` calls of `fn` after `warmup` untimed calls. */
function time(runs: number, warmup: number, fn: () => unknown): number[] {
  for (let i = 0; i < warmup; i++) fn()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    fn()
    samples.push(performance.now() - start)
  }
  return samples
}

/** One optimal-ate pairing on AMCL's BN254 of random points, per sample. */
function pairingSamples(): number[] {
  const scalar = () => (randomBits(256) % (R - 1n)) + 1n
  const points = Array.from({ length: RUNS + WARMUP }, () => [G1.BASE.multiply(scalar()), G2.BASE.multiply(scalar())] as const)
  let i = 0
  return time(RUNS, WARMUP, () => {
    const [p, q] = points[i++]!
    return pair(p, q)
  })
}

/** Figures of one benchmark run (medians in ms). */
export interface AnoncredsBenchResult {
  ours: Record<'createCredentialDefinition' | 'createCredential' | 'createPresentation' | 'verifyPresentation', LatencySummary>
  wasm: Record<'createPresentation' | 'verifyPresentation', LatencySummary>
  revocation: Record<'pairing', LatencySummary>
}

/** Runs the measurements and returns the summaries (no printing). */
export async function anoncredsBench(): Promise<AnoncredsBenchResult> {
  const engine = createAnoncredsEngine()
  const identus = await loadIdentusAnoncreds()
  const wasm = identus.wasm
  const json = (handle: ObjectHandle): Json => JSON.parse(engine.getJson({ objectHandle: handle })) as Json

  // ---- issuer keys (ours) ----
  const schema = engine.createSchema({ name: 'person', version: '1.0', issuerId: ISSUER_ID, attributeNames: Object.keys(RAW) })
  let keys: ReturnType<typeof engine.createCredentialDefinition> | undefined
  const keySamples = time(KEY_RUNS, 0, () => {
    keys = engine.createCredentialDefinition({ schemaId: SCHEMA_ID, schema, tag: 'default', issuerId: ISSUER_ID, signatureType: 'CL', supportRevocation: false })
  })
  const { credentialDefinition, credentialDefinitionPrivate, keyCorrectnessProof } = keys!
  const offer = engine.createCredentialOffer({ schemaId: SCHEMA_ID, credentialDefinitionId: CRED_DEF_ID, keyCorrectnessProof })

  // ---- our holder: request, signing (timed), processing ----
  const linkSecret = engine.createLinkSecret()
  const { credentialRequest, credentialRequestMetadata } = engine.createCredentialRequest({
    entropy: engine.generateNonce(),
    credentialDefinition,
    linkSecret,
    linkSecretId: 'default',
    credentialOffer: offer,
  })
  let issued: ObjectHandle | undefined
  const signSamples = time(RUNS, WARMUP, () => {
    if (issued) engine.objectFree({ objectHandle: issued })
    issued = engine.createCredential({ credentialDefinition, credentialDefinitionPrivate, credentialOffer: offer, credentialRequest, attributeRawValues: RAW })
  })
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
  const presentSamples = time(RUNS, WARMUP, () => {
    if (presentation) engine.objectFree({ objectHandle: presentation })
    presentation = present()
  })
  const verify = () =>
    engine.verifyPresentation({
      presentation: presentation!,
      presentationRequest,
      schemas: [schema],
      schemaIds: [SCHEMA_ID],
      credentialDefinitions: [credentialDefinition],
      credentialDefinitionIds: [CRED_DEF_ID],
    })
  if (!verify()) throw new Error('our verifier refused our own presentation')
  const verifySamples = time(RUNS, WARMUP, verify)

  // ---- the wasm build: an identus holder with a credential signed by our keys ----
  const credDefJson = json(credentialDefinition)
  const schemaJson = json(schema)
  const offerJson = json(offer)
  const wasmLinkSecret = identus.createLinkSecret()
  const wasmRequest = identus.createCredentialRequest({ credentialDefinition: credDefJson, linkSecret: wasmLinkSecret, linkSecretId: 'default', credentialOffer: offerJson })
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
    wasmPresentation = wasm.Prover.createPresentation(wasm.PresentationRequest.from(requestJson), wasmCredential, wasmLink, schemas, credDefs)
  })
  const wasmPresentationRequest = wasm.PresentationRequest.from(requestJson)
  const wasmVerify = () => wasm.Verifier.verifyPresentation(wasmPresentation!, wasmPresentationRequest, schemas, credDefs)
  if (!wasmVerify()) throw new Error('the wasm verifier refused its own presentation')
  const wasmVerifySamples = time(RUNS, WARMUP, wasmVerify)
  for (const object of [wasmPresentation!, wasmPresentationRequest, wasmCredential, wasmLink]) object.free()

  return {
    ours: {
      createCredentialDefinition: summarize(keySamples),
      createCredential: summarize(signSamples),
      createPresentation: summarize(presentSamples),
      verifyPresentation: summarize(verifySamples),
    },
    wasm: { createPresentation: summarize(wasmPresentSamples), verifyPresentation: summarize(wasmVerifySamples) },
    revocation: { pairing: summarize(pairingSamples()) },
  }
}

/** `npm run bench -- anoncreds`: prints the figures, the ratios ours / wasm and the targets. */
export async function runAnoncreds(): Promise<void> {
  const r = await anoncredsBench()
  const row = (label: string, s: LatencySummary, extra = '') =>
    console.log(`${label.padEnd(36)} p50 ${ms(s.p50).padStart(11)}  p99 ${ms(s.p99).padStart(11)}  (n=${s.n})${extra}`)
  const ratio = (ours: LatencySummary, wasm: LatencySummary) => `  ours/wasm ${(ours.p50 / wasm.p50).toFixed(2)}x`
  const target = (s: LatencySummary, limit: number) => `  target <= ${limit} ms: ${s.p50 <= limit ? 'met' : 'MISSED'}`
  console.log('5-attribute credential; presentation: 1 revealed attribute + 1 >= predicate; no revocation')
  row('ours createCredentialDefinition', r.ours.createCredentialDefinition)
  row('ours createCredential', r.ours.createCredential)
  row('ours createPresentation', r.ours.createPresentation, ratio(r.ours.createPresentation, r.wasm.createPresentation) + target(r.ours.createPresentation, TARGET_PRESENT_MS))
  row('ours verifyPresentation', r.ours.verifyPresentation, ratio(r.ours.verifyPresentation, r.wasm.verifyPresentation) + target(r.ours.verifyPresentation, TARGET_VERIFY_MS))
  row('identus wasm createPresentation', r.wasm.createPresentation)
  row('identus wasm verifyPresentation', r.wasm.verifyPresentation)
  row('ours BN254 pairing (revocation)', r.revocation.pairing)
}
