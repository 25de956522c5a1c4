/**
 * The wasm32 build of anoncreds embedded in `@hyperledger/identus-sdk` (a devDependency), loaded
 * in Node as an independent AnonCreds implementation to test our engine against.
 *
 * Where it lives: the SDK's `build/anoncreds_wasm-<hash>.mjs` is wasm-bindgen glue (classes
 * `Issuer`, `Prover`, `Verifier`, `CredentialDefinition`, ... and `initSync`); the wasm bytes
 * themselves are a base64 string decoded by the glue's sibling chunk (`build/chunk-<hash>.mjs`,
 * the only chunk the glue imports), exported there as a `Uint8Array` among other wasm modules.
 * The package's `exports` map hides both files, so they are found on disk next to the resolved
 * package entry; the right byte array is the one whose export section names
 * `prover_createPresentation`.
 *
 * Node shim: the wasm's random source (Rust `getrandom`, Node branch) reads the CommonJS
 * `module` free variable to `require('crypto')`, which does not exist in ES modules. A minimal
 * `globalThis.module = { require }` is installed (only when no `module` global exists); it has no
 * `exports`, so UMD bundles that test `module.exports` are not fooled.
 *
 * The API below is JSON in, JSON out in the legacy (non-W3C) AnonCreds format, without
 * revocation (that build supports neither): plain objects shaped as anoncreds-rs writes them.
 * Every wasm object created for a call is freed before it returns.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** A JSON object as the wasm build reads and writes it. */
export type Json = Record<string, unknown>

/** A wasm-bindgen object: a JSON view and an explicit destructor. */
interface WasmObject {
  toJSON(): unknown
  free(): void
}

interface WasmClass<T extends WasmObject = WasmObject> {
  from(json: unknown): T
}

interface CredentialDefinitionResponse {
  readonly credentialDefinition: WasmObject
  readonly credentialDefinitionPrivate: WasmObject
  readonly keyCorrectnessProof: WasmObject
  free(): void
}

interface CredentialRequestResponse {
  readonly request: WasmObject
  readonly metadata: WasmObject
  free(): void
}

interface LinkSecretObject {
  toString(): string
  free(): void
}

/**
 * The part of the wasm-bindgen glue this module uses. Arguments typed `WasmObject` are wasm
 * objects of the matching class; the glue consumes (frees) some of them: the schema of
 * `createCredentialDefinition`, the proof of `createCredentialOffer`, the request of
 * `createPresentation`.
 */
export interface IdentusWasmModule {
  initSync(options: { module: Uint8Array }): unknown
  Issuer: {
    createSchema(name: string, version: string, issuerId: string, attrNames: string[]): WasmObject
    createCredentialDefinition(schemaId: string, schema: WasmObject, issuerId: string, tag: string): CredentialDefinitionResponse
    createCredentialOffer(schemaId: string, credDefId: string, keyCorrectnessProof: WasmObject): WasmObject
    createCredential(
      credDef: WasmObject,
      credDefPrivate: WasmObject,
      offer: WasmObject,
      request: WasmObject,
      rawValues: Record<string, string | number>,
    ): WasmObject
  }
  Prover: {
    createLinkSecret(): LinkSecretObject
    createCredentialRequest(
      credDef: WasmObject,
      linkSecret: LinkSecretObject,
      linkSecretId: string,
      offer: WasmObject,
    ): CredentialRequestResponse
    processCredential(credential: WasmObject, metadata: WasmObject, linkSecret: LinkSecretObject, credDef: WasmObject): WasmObject
    createPresentation(
      request: WasmObject,
      credential: WasmObject,
      linkSecret: LinkSecretObject,
      schemas: Record<string, Json>,
      credDefs: Record<string, Json>,
    ): WasmObject
  }
  Verifier: {
    createNonce(): string
    verifyPresentation(
      presentation: WasmObject,
      request: WasmObject,
      schemas: Record<string, Json>,
      credDefs: Record<string, Json>,
    ): boolean
  }
  LinkSecret: { fromString(value: string): LinkSecretObject }
  CredentialSchema: WasmClass
  CredentialDefinition: WasmClass
  CredentialDefinitionPrivate: WasmClass
  CredentialKeyCorrectnessProof: WasmClass
  CredentialOffer: WasmClass
  CredentialRequest: WasmClass
  CredentialRequestMetadata: WasmClass
  Credential: WasmClass
  PresentationRequest: WasmClass
  Presentation: WasmClass
}

/** Object classes of the wasm build that parse and write JSON. */
export type IdentusObjectType =
  | 'CredentialSchema'
  | 'CredentialDefinition'
  | 'CredentialDefinitionPrivate'
  | 'CredentialKeyCorrectnessProof'
  | 'CredentialOffer'
  | 'CredentialRequest'
  | 'CredentialRequestMetadata'
  | 'Credential'
  | 'PresentationRequest'
  | 'Presentation'

/** The identus wasm anoncreds as JSON-in / JSON-out issuer, holder and verifier functions. */
export interface IdentusAnoncreds {
  /** The raw wasm-bindgen module (for benchmarks that want to keep wasm objects alive). */
  readonly wasm: IdentusWasmModule
  createSchema(o: { name: string; version: string; issuerId: string; attrNames: string[] }): Json
  createCredentialDefinition(o: { schemaId: string; schema: Json; issuerId: string; tag: string }): {
    credentialDefinition: Json
    credentialDefinitionPrivate: Json
    keyCorrectnessProof: Json
  }
  createCredentialOffer(o: { schemaId: string; credentialDefinitionId: string; keyCorrectnessProof: Json }): Json
  /** Raw values: strings, or numbers (written as their decimal, then encoded as anoncreds-rs does). */
  createCredential(o: {
    credentialDefinition: Json
    credentialDefinitionPrivate: Json
    credentialOffer: Json
    credentialRequest: Json
    attributeRawValues: Record<string, string | number>
  }): Json
  createLinkSecret(): string
  /** The wasm picks the request's `entropy` itself. */
  createCredentialRequest(o: { credentialDefinition: Json; linkSecret: string; linkSecretId: string; credentialOffer: Json }): {
    credentialRequest: Json
    credentialRequestMetadata: Json
  }
  /** Checks the signature-correctness proof and adds `v'`; throws when the credential is not valid. */
  processCredential(o: { credential: Json; credentialRequestMetadata: Json; linkSecret: string; credentialDefinition: Json }): Json
  createNonce(): string
  /**
   * One credential; the wasm reveals every requested attribute and proves every requested
   * predicate from it (no choice of referents, no self-attested values).
   */
  createPresentation(o: {
    presentationRequest: Json
    credential: Json
    linkSecret: string
    schemas: Record<string, Json>
    credentialDefinitions: Record<string, Json>
  }): Json
  /** Parses `value` as a wasm object of `type` and writes it back (throws when it does not parse). */
  reserialise(type: IdentusObjectType, value: Json): Json
  /** `false` for an invalid presentation; the wasm maps every verification error to `false`. */
  verifyPresentation(o: {
    presentation: Json
    presentationRequest: Json
    schemas: Record<string, Json>
    credentialDefinitions: Record<string, Json>
  }): boolean
}

/**
 * Converts what `toJSON()` of the glue returns into plain JSON values (serde-wasm-bindgen may
 * produce `Map`s and `bigint`s), keeping key order.
 */
export function plainJson(value: unknown): unknown {
  if (value instanceof Map) {
    const out: Json = {}
    for (const [key, item] of value) out[String(key)] = plainJson(item)
    return out
  }
  if (Array.isArray(value)) return value.map(plainJson)
  if (typeof value === 'bigint') return value.toString()
  if (value && typeof value === 'object') {
    const out: Json = {}
    for (const [key, item] of Object.entries(value)) out[key] = plainJson(item)
    return out
  }
  return value
}

/** `toJSON()` of a wasm object as a plain JSON object. */
function json(object: WasmObject): Json {
  return plainJson(object.toJSON()) as Json
}

/** Runs `fn` with wasm objects it creates registered in `owned`, freeing them all afterwards. */
function scoped<T>(fn: (own: <O extends { free(): void }>(object: O) => O) => T): T {
  const owned: { free(): void }[] = []
  try {
    return fn((object) => {
      owned.push(object)
      return object
    })
  } finally {
    for (const object of owned.reverse()) {
      try {
        object.free()
      } catch {
        // already consumed by the glue (it frees some arguments itself)
      }
    }
  }
}

function installModuleShim(): void {
  const global = globalThis as { module?: unknown }
  if (global.module === undefined) global.module = { require: createRequire(import.meta.url) }
}

/** The SDK's `build/` folder, found from the package's resolved CommonJS entry. */
function sdkBuildDirectory(): string {
  const require = createRequire(import.meta.url)
  return dirname(require.resolve('@hyperledger/identus-sdk'))
}

async function loadWasmModule(): Promise<IdentusWasmModule> {
  const dir = sdkBuildDirectory()
  const glueFile = readdirSync(dir).find((name) => /^anoncreds_wasm-[A-Za-z0-9]+\.mjs$/.test(name))
  if (!glueFile) throw new Error(`no anoncreds_wasm-*.mjs in ${dir}`)
  const glueSource = readFileSync(join(dir, glueFile), 'utf8')
  const chunkFiles = [...glueSource.matchAll(/from\s*["']\.\/(chunk-[A-Za-z0-9]+\.mjs)["']/g)].map((m) => m[1] as string)
  let bytes: Uint8Array | undefined
  for (const chunkFile of chunkFiles) {
    const chunk = (await import(pathToFileURL(join(dir, chunkFile)).href)) as Record<string, unknown>
    bytes = Object.values(chunk).find(
      (value): value is Uint8Array =>
        value instanceof Uint8Array && Buffer.from(value.buffer, value.byteOffset, value.byteLength).includes('prover_createPresentation'),
    )
    if (bytes) break
  }
  if (!bytes) throw new Error(`no anoncreds wasm bytes in the chunks imported by ${glueFile}`)
  installModuleShim()
  const wasm = (await import(pathToFileURL(join(dir, glueFile)).href)) as IdentusWasmModule
  wasm.initSync({ module: bytes })
  return wasm
}

function wrap(wasm: IdentusWasmModule): IdentusAnoncreds {
  return {
    wasm,

    createSchema: (o) => scoped((own) => json(own(wasm.Issuer.createSchema(o.name, o.version, o.issuerId, o.attrNames)))),

    createCredentialDefinition: (o) =>
      scoped((own) => {
        const schema = wasm.CredentialSchema.from(o.schema) // consumed by the call
        const response = own(wasm.Issuer.createCredentialDefinition(o.schemaId, schema, o.issuerId, o.tag))
        return {
          credentialDefinition: json(own(response.credentialDefinition)),
          credentialDefinitionPrivate: json(own(response.credentialDefinitionPrivate)),
          keyCorrectnessProof: json(own(response.keyCorrectnessProof)),
        }
      }),

    createCredentialOffer: (o) =>
      scoped((own) => {
        const proof = wasm.CredentialKeyCorrectnessProof.from(o.keyCorrectnessProof) // consumed
        return json(own(wasm.Issuer.createCredentialOffer(o.schemaId, o.credentialDefinitionId, proof)))
      }),

    createCredential: (o) =>
      scoped((own) =>
        json(
          own(
            wasm.Issuer.createCredential(
              own(wasm.CredentialDefinition.from(o.credentialDefinition)),
              own(wasm.CredentialDefinitionPrivate.from(o.credentialDefinitionPrivate)),
              own(wasm.CredentialOffer.from(o.credentialOffer)),
              own(wasm.CredentialRequest.from(o.credentialRequest)),
              o.attributeRawValues,
            ),
          ),
        ),
      ),

    createLinkSecret: () => scoped((own) => own(wasm.Prover.createLinkSecret()).toString()),

    createCredentialRequest: (o) =>
      scoped((own) => {
        const response = own(
          wasm.Prover.createCredentialRequest(
            own(wasm.CredentialDefinition.from(o.credentialDefinition)),
            own(wasm.LinkSecret.fromString(o.linkSecret)),
            o.linkSecretId,
            own(wasm.CredentialOffer.from(o.credentialOffer)),
          ),
        )
        return { credentialRequest: json(own(response.request)), credentialRequestMetadata: json(own(response.metadata)) }
      }),

    processCredential: (o) =>
      scoped((own) =>
        json(
          own(
            wasm.Prover.processCredential(
              own(wasm.Credential.from(o.credential)),
              own(wasm.CredentialRequestMetadata.from(o.credentialRequestMetadata)),
              own(wasm.LinkSecret.fromString(o.linkSecret)),
              own(wasm.CredentialDefinition.from(o.credentialDefinition)),
            ),
          ),
        ),
      ),

    createNonce: () => wasm.Verifier.createNonce(),

    reserialise: (type, value) => scoped((own) => json(own(wasm[type].from(value)))),

    createPresentation: (o) =>
      scoped((own) => {
        const request = wasm.PresentationRequest.from(o.presentationRequest) // consumed
        return json(
          own(
            wasm.Prover.createPresentation(
              request,
              own(wasm.Credential.from(o.credential)),
              own(wasm.LinkSecret.fromString(o.linkSecret)),
              o.schemas,
              o.credentialDefinitions,
            ),
          ),
        )
      }),

    verifyPresentation: (o) =>
      scoped((own) =>
        wasm.Verifier.verifyPresentation(
          own(wasm.Presentation.from(o.presentation)),
          own(wasm.PresentationRequest.from(o.presentationRequest)),
          o.schemas,
          o.credentialDefinitions,
        ),
      ),
  }
}

let loading: Promise<IdentusAnoncreds> | undefined

/**
 * The identus wasm anoncreds, initialised once per process (the wasm instance is a module-level
 * singleton of the glue, so every caller shares it).
 */
export function loadIdentusAnoncreds(): Promise<IdentusAnoncreds> {
  loading ??= loadWasmModule().then(wrap)
  return loading
}
