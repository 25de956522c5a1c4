/**
 * The agent's public DID, end to end on loopback: agent-node (in-process, real SQLite and KMS)
 * creates it, serves it on its public port and keeps it across restarts; the did:webvh log is
 * checked with didwebvh-ts's resolver and an Ed25519 verifier written here (not the agent's);
 * the AnonCreds registry fails cleanly on ids it cannot resolve.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import { resolveDIDFromLog, type DIDLog } from 'didwebvh-ts'
import { Hono } from 'hono'
import { DidDocumentRole, DidRecord, DidRepository } from '@credo-ts/core'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { DidWebAnonCredsRegistry, anonCredsObjectId } from '../../src/anoncreds-registry/index.ts'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { MAX_RESOLUTION_BYTES, resolveDidDocument } from '../../src/did/resolve.ts'
import { listen } from '../../src/http/listen.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { freePort } from '@parley/shared/testing/free-port'

const walletKey = randomBytes(32).toString('base64url')
const dataDirs: string[] = []
let node: AgentNode | undefined

/** Starts agent-node on `publicPort` with `dataDir` and extra settings. */
async function start(dataDir: string, publicPort: number, env: Record<string, string> = {}): Promise<AgentNode> {
  const { config } = loadConfig({
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: walletKey,
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(await freePort()),
    AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
    ...env,
  })
  node = await startAgentNode(config, createLogger('silent'))
  return node
}

async function stop(): Promise<void> {
  await node?.stop()
  node = undefined
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-did-'))
  dataDirs.push(dir)
  return dir
}

/** Connects a new wallet through `agent`'s public invitation. @returns the DID the connection's invitation named */
async function invitationDidOfNewConnection(agent: AgentNode): Promise<string | undefined> {
  const { url } = (await (await fetch(`http://127.0.0.1:${agent.adminPort}/v1/invitation`)).json()) as { url: string }
  const wallet = await WalletPeer.create({ label: 'web-wallet', logger: createLogger('silent') })
  try {
    const connectionId = await wallet.connect(url)
    return (await wallet.agent.modules.didcomm.connections.getById(connectionId)).invitationDid
  } finally {
    await wallet.stop()
  }
}

async function getLog(port: number): Promise<DIDLog> {
  const response = await fetch(`http://localhost:${port}/.well-known/did.jsonl`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/jsonl/)
  return (await response.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as DIDLog[number])
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** didwebvh-ts's own resolution of `log`, with an Ed25519 check independent of the agent's code. */
function independentlyResolve(log: DIDLog) {
  return resolveDIDFromLog(log, {
    verifier: { verify: async (signature, message, publicKey) => ed25519.verify(signature, message, publicKey) },
  })
}

type Service = { id: string; type: string; serviceEndpoint: unknown }

afterEach(stop)
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

describe('public DID (did:webvh, the default)', () => {
  it('is created at first start, verifies, is served as did.jsonl and did.json, and GET /v1/agent reports it', async () => {
    const port = await freePort()
    const agent = await start(newDataDir(), port)
    expect(agent.publicDid).toMatch(new RegExp(`^did:webvh:Qm[1-9A-HJ-NP-Za-km-z]{44}:localhost%3A${port}$`))

    const log = await getLog(port)
    expect(log).toHaveLength(1)
    const resolved = await independentlyResolve(log)
    expect(resolved.meta.error).toBeUndefined()
    expect(resolved.did).toBe(agent.publicDid)
    // Ours, and after them the implicit #files and #whois services the resolver adds (did:webvh v1.0).
    const services = resolved.doc.service as Service[]
    expect(services.slice(0, 2)).toEqual([
      expect.objectContaining({
        id: `${agent.publicDid}#did-communication`,
        type: 'did-communication',
        serviceEndpoint: `ws://127.0.0.1:${port}`,
      }),
      { id: `${agent.publicDid}#anoncreds`, type: 'AnonCredsRegistry', serviceEndpoint: `http://localhost:${port}/anoncreds/v1` },
    ])
    expect(resolved.doc.keyAgreement).toEqual([`${agent.publicDid}#key-agreement-1`])

    // The parallel did:web document: same keys and services under did:web, aliasing the did:webvh DID.
    const web = await getJson(`http://localhost:${port}/.well-known/did.json`)
    expect(web.status).toBe(200)
    const webDid = `did:web:localhost%3A${port}`
    expect(web.body.id).toBe(webDid)
    expect(web.body.alsoKnownAs).toContain(agent.publicDid)
    expect((web.body.service as Service[]).map((s) => [s.id, s.type])).toEqual(
      expect.arrayContaining([
        [`${webDid}#did-communication`, 'did-communication'],
        [`${webDid}#anoncreds`, 'AnonCredsRegistry'],
      ]),
    )

    const info = await getJson(`http://127.0.0.1:${agent.adminPort}/v1/agent`)
    expect(info.body).toMatchObject({ publicDid: agent.publicDid, endpoint: `http://localhost:${port}`, label: 'Parley' })

    // The agent's own resolver (what the wallet uses) agrees.
    expect((await resolveDidDocument(agent.publicDid)).service).toEqual(services)
  })

  it('is the same DID after a restart; a changed endpoint list appends a verified log entry', async () => {
    const dataDir = newDataDir()
    const port = await freePort()
    const first = (await start(dataDir, port)).publicDid
    await stop()

    expect((await start(dataDir, port)).publicDid).toBe(first)
    expect(await getLog(port)).toHaveLength(1)
    await stop()

    const wss = `wss://agent.example/${port}`
    expect((await start(dataDir, port, { AGENT_ENDPOINTS: `${wss},ws://127.0.0.1:${port}` })).publicDid).toBe(first)
    const log = await getLog(port)
    expect(log).toHaveLength(2)
    expect(log[1]!.versionId).toMatch(/^2-/)
    const resolved = await independentlyResolve(log)
    expect(resolved.meta.error).toBeUndefined()
    expect(resolved.did).toBe(first)
    expect((resolved.doc.service as Service[]).filter((s) => s.type === 'did-communication').map((s) => s.serviceEndpoint)).toEqual([
      wss,
      `ws://127.0.0.1:${port}`,
    ])
  })

  it('a log altered after signing does not resolve (the proof no longer matches)', async () => {
    const port = await freePort()
    const did = (await start(newDataDir(), port)).publicDid
    const log = await getLog(port)
    await stop()
    // Same place, same DID; one DIDComm endpoint changed in the signed state.
    const altered = structuredClone(log)
    ;(altered[0]!.state.service as Service[])[0]!.serviceEndpoint = 'wss://attacker.example'
    const server = await listen(
      new Hono().get('/.well-known/did.jsonl', (c) => c.text(altered.map((e) => JSON.stringify(e)).join('\n'))).fetch,
      port,
    )
    try {
      await expect(resolveDidDocument(did)).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining('does not verify') })
    } finally {
      server.close()
    }
  })
})

describe('public DID (did:web)', () => {
  it('serves did.json with both services and no did:webvh log', async () => {
    const port = await freePort()
    const did = `did:web:127.0.0.1%3A${port}`
    const agent = await start(newDataDir(), port, { AGENT_PUBLIC_DID: did })
    expect(agent.publicDid).toBe(did)

    const document = await resolveDidDocument(did)
    expect(document.id).toBe(did)
    expect(document.service!.map((s) => [s.id, s.type])).toEqual([
      [`${did}#did-communication`, 'did-communication'],
      [`${did}#anoncreds`, 'AnonCredsRegistry'],
    ])
    expect(document.service![1]!.serviceEndpoint).toBe(`http://127.0.0.1:${port}/anoncreds/v1`)
    expect((await fetch(`http://127.0.0.1:${port}/.well-known/did.jsonl`)).status).toBe(404)
  })

  it('a wallet connects through the invitation naming the did:web DID (resolved over HTTP)', async () => {
    const port = await freePort()
    const did = `did:web:127.0.0.1%3A${port}`
    const agent = await start(newDataDir(), port, { AGENT_PUBLIC_DID: did })
    expect(await invitationDidOfNewConnection(agent)).toBe(did)
  }, 60_000)

  it('a public DID Credo holds twice (two instances importing at once) is stored once again at the next start, and wallets connect', async () => {
    const port = await freePort()
    const did = `did:web:127.0.0.1%3A${port}`
    const dataDir = newDataDir()
    let agent = await start(dataDir, port, { AGENT_PUBLIC_DID: did })
    const dids = () => agent.agent.dependencyManager.resolve(DidRepository)
    const createdDids = () => dids().findByQuery(agent.agent.context, { did, role: DidDocumentRole.Created })
    const [stored] = await createdDids()
    // what the second of two instances importing at once stored
    await dids().save(
      agent.agent.context,
      new DidRecord({ did, role: DidDocumentRole.Created, didDocument: stored!.didDocument, keys: stored!.keys }),
    )
    expect(await createdDids()).toHaveLength(2)
    await stop()

    agent = await start(dataDir, port, { AGENT_PUBLIC_DID: did })
    expect(await createdDids()).toHaveLength(1)
    expect(await invitationDidOfNewConnection(agent)).toBe(did)
  }, 60_000)
})

describe('DidWebAnonCredsRegistry failures', () => {
  const registry = new DidWebAnonCredsRegistry()
  const schema = (issuerId: string) => ({ issuerId, name: 'unknown', version: '1.0', attrNames: ['a'] })

  it('an object the issuer never published is notFound (fetched from the issuer, 404)', async () => {
    const port = await freePort()
    const agent = await start(newDataDir(), port)
    const id = anonCredsObjectId(agent.publicDid, 'schema', schema(agent.publicDid))
    const { body, status } = await getJson(`http://localhost:${port}/anoncreds/v1/schema/${id.split('/').pop()}`)
    expect(status).toBe(404)
    expect(body.error).toBe('not_found')
    const result = await registry.getSchema(agent.agent.context, id)
    expect(result.schema).toBeUndefined()
    expect(result.resolutionMetadata.error).toBe('notFound')
  })

  it('an unreachable issuer, a malformed id, an unsafe or oversized answer and a foreign issuer id fail with a reason, not an exception', async () => {
    const port = await freePort()
    const agent = await start(newDataDir(), port)
    const context = agent.agent.context
    const closedPort = await freePort()
    const unreachable = `did:web:localhost%3A${closedPort}`
    const noHost = await registry.getSchema(context, anonCredsObjectId(unreachable, 'schema', schema(unreachable)))
    expect(noHost.resolutionMetadata).toMatchObject({ error: 'invalid', message: expect.stringContaining('failed') })

    const malformed = await registry.getCredentialDefinition(
      context,
      `${agent.publicDid}?service=anoncreds&relativeRef=/credDef/not-a-hash`,
    )
    expect(malformed.resolutionMetadata).toMatchObject({ error: 'invalid', message: expect.stringContaining('not a did:web AnonCreds') })

    // A DID document pointing its AnonCreds service at plain http on a non-loopback host: refused
    // before any request is made.
    const otherPort = await freePort()
    const other = `did:web:localhost%3A${otherPort}`
    const app = new Hono()
      .get('/.well-known/did.json', (c) =>
        c.json({
          id: other,
          service: [{ id: `${other}#anoncreds`, type: 'AnonCredsRegistry', serviceEndpoint: 'http://parley.invalid/anoncreds/v1' }],
        }),
      )
      .get('/huge/did.json', (c) => c.text('x'.repeat(MAX_RESOLUTION_BYTES + 1)))
    const server = await listen(app.fetch, otherPort)
    try {
      const refused = await registry.getSchema(context, anonCredsObjectId(other, 'schema', schema(other)))
      expect(refused.resolutionMetadata).toMatchObject({
        error: 'invalid',
        message: expect.stringContaining('refusing to fetch http://parley.invalid'),
      })
      // A document larger than the resolver reads.
      const huge = `${other}:huge`
      const tooBig = await registry.getSchema(context, anonCredsObjectId(huge, 'schema', schema(huge)))
      expect(tooBig.resolutionMetadata).toMatchObject({ error: 'invalid', message: expect.stringContaining('body larger than') })
    } finally {
      server.close()
    }

    // Only this agent's public DID can publish.
    const foreign = await registry.registerSchema(context, { schema: schema('did:web:someone.example'), options: {} })
    expect(foreign.schemaState).toMatchObject({ state: 'failed', reason: expect.stringContaining("not this agent's public DID") })

    const revocation = await registry.getRevocationStatusList()
    expect(revocation.resolutionMetadata).toMatchObject({ error: 'unsupportedAnonCredsMethod', message: 'revocation is not supported yet' })
  })
})
