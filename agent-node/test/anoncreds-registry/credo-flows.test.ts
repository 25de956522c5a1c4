/**
 * Credo's own AnonCreds flows on Parley's TypeScript engine: agent-node (in-process) registers a
 * schema and a credential definition under its public DID (did:webvh), issues a credential over
 * issue-credential v2 to a wallet peer, and verifies its presentation over present-proof v2 (a
 * revealed attribute and a `>=` predicate); a predicate that does not hold makes the wallet
 * decline. The wallet has no access to the agent's storage: it resolves the schema and the
 * credential definition over HTTP from the DID (did.jsonl, then the AnonCreds service), and the
 * test watches those requests reach the agent's public port.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DidCommConnectionEventTypes,
  DidCommCredentialEventTypes,
  DidCommCredentialState,
  DidCommDidExchangeState,
  DidCommProofEventTypes,
  DidCommProofState,
  type DidCommConnectionStateChangedEvent,
  type DidCommCredentialStateChangedEvent,
  type DidCommProofExchangeRecord,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { nextEvent } from '../support/next-event.ts'

const ATTRIBUTES = { name: 'Alice Example', age: '27', height: '172', sex: 'F', id: 'P-0042' }

describe('Credo AnonCreds flows on the TypeScript engine', () => {
  let dataDir: string
  let node: AgentNode
  let wallet: WalletPeer
  let connectionId: string
  let credentialDefinitionId: string
  let schemaId: string
  /** URLs of every HTTP GET made in this process (agent and wallet share it). */
  const fetched: string[] = []

  beforeAll(async () => {
    const realFetch = globalThis.fetch
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      fetched.push(input instanceof Request ? input.url : String(input))
      return realFetch(input, init)
    })
    dataDir = mkdtempSync(join(tmpdir(), 'parley-anoncreds-'))
    const publicPort = await freePort()
    const { config } = loadConfig({
      AGENT_LABEL: 'issuer',
      DATA_DIR: dataDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_PORT: String(publicPort),
      ADMIN_PORT: String(await freePort()),
      AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
    })
    node = await startAgentNode(config, createLogger('silent'))
    wallet = await WalletPeer.create({
      label: 'holder',
      logger: createLogger('silent', 'wallet'),
    })
    const completed = new Promise<string>((resolve) => {
      node.agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
        if (payload.connectionRecord.state === DidCommDidExchangeState.Completed) resolve(payload.connectionRecord.id)
      })
    })
    const { url } = (await (await fetch(`http://127.0.0.1:${node.adminPort}/v1/invitation`)).json()) as { url: string }
    await wallet.connect(url)
    connectionId = await completed
  }, 120_000)

  afterAll(async () => {
    vi.restoreAllMocks()
    await wallet?.stop()
    await node?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('registers a schema and a credential definition through Credo', async () => {
    const anoncreds = node.agent.modules.anoncreds
    const issuerId = node.publicDid
    expect(issuerId).toMatch(/^did:webvh:[^:]+:localhost%3A\d+$/)
    const schema = await anoncreds.registerSchema({
      schema: { issuerId, name: 'parley-person', version: '1.0', attrNames: Object.keys(ATTRIBUTES) },
      options: {},
    })
    expect(schema.schemaState.state, JSON.stringify(schema.schemaState)).toBe('finished')
    schemaId = schema.schemaState.schemaId!
    expect(schemaId.startsWith(`${issuerId}?`)).toBe(true)
    expect(schemaId).toMatch(/\?service=anoncreds&relativeRef=\/schema\/[1-9A-HJ-NP-Za-km-z]{43,44}$/)

    const definition = await anoncreds.registerCredentialDefinition({
      credentialDefinition: { issuerId, schemaId, tag: 'default' },
      options: { supportRevocation: false },
    })
    expect(definition.credentialDefinitionState.state, JSON.stringify(definition.credentialDefinitionState)).toBe('finished')
    credentialDefinitionId = definition.credentialDefinitionState.credentialDefinitionId!
    expect(credentialDefinitionId.startsWith(`${issuerId}?`)).toBe(true)
    expect(credentialDefinitionId).toMatch(/\?service=anoncreds&relativeRef=\/credDef\/[1-9A-HJ-NP-Za-km-z]{43,44}$/)
  }, 120_000)

  it('issues a credential the wallet accepts and stores (issue-credential v2)', async () => {
    expect(credentialDefinitionId).toBeDefined()
    const issuerDone = nextEvent<DidCommCredentialStateChangedEvent, string>(
      node.agent,
      DidCommCredentialEventTypes.DidCommCredentialStateChanged,
      (p) => (p.credentialExchangeRecord.state === DidCommCredentialState.Done ? p.credentialExchangeRecord.id : undefined),
    )
    const offer = await node.agent.modules.didcomm.credentials.offerCredential({
      connectionId,
      protocolVersion: 'v2',
      credentialFormats: {
        anoncreds: { credentialDefinitionId, attributes: Object.entries(ATTRIBUTES).map(([name, value]) => ({ name, value })) },
      },
    })
    const received = await wallet.credentialOffer(offer.threadId)
    const done = await wallet.acceptCredentialOffer(received.id, 90_000)
    expect(done.state).toBe(DidCommCredentialState.Done)
    expect(await issuerDone).toBe(offer.id)

    const held = await wallet.anonCredsCredentials()
    expect(held).toHaveLength(1)
    expect(held[0]!.credentialDefinitionId).toBe(credentialDefinitionId)
    // The wallet resolved both objects over HTTP from the DID, at the agent's public port.
    const base = `http://localhost:${node.publicPort}`
    const relative = (id: string) => new URLSearchParams(id.split('?')[1]).get('relativeRef')
    expect(fetched).toContain(`${base}/.well-known/did.jsonl`)
    expect(fetched).toContain(`${base}/anoncreds/v1${relative(schemaId)}`)
    expect(fetched).toContain(`${base}/anoncreds/v1${relative(credentialDefinitionId)}`)
    // Credo keeps AnonCreds credentials in W3C form: integer values become JSON numbers (as
    // anoncreds-rs writes them) and the attribute `id` becomes `credentialSubject.id`, which
    // Credo leaves out of `attributes`.
    const { id, ...claims } = ATTRIBUTES
    expect(held[0]!.attributes).toEqual({ ...claims, age: 27, height: 172 })
    const [record] = await wallet.agent.w3cCredentials.getAll()
    expect(record!.firstCredential.credentialSubjectIds).toEqual([id])
  }, 120_000)

  /**
   * Asks for `name` revealed and `age >= minimumAge`, optionally restricted to our cred def. Not
   * `id`: Credo finds credentials by tags built from `credentialSubject` claims, which leave the
   * subject id out, so it cannot select a credential for a requested attribute named `id`.
   */
  const requestProof = (minimumAge: number, restrict = false) => {
    const restrictions = restrict ? [{ cred_def_id: credentialDefinitionId }] : undefined
    return node.agent.modules.didcomm.proofs.requestProof({
      connectionId,
      protocolVersion: 'v2',
      proofFormats: {
        anoncreds: {
          name: 'person check',
          version: '1.0',
          requested_attributes: { name: { name: 'name', restrictions } },
          requested_predicates: { age: { name: 'age', p_type: '>=', p_value: minimumAge, restrictions } },
        },
      },
    })
  }

  /** Runs a proof request the wallet should satisfy; checks the agent verified it. */
  const presentAndVerify = async (restrict: boolean) => {
    const request = await requestProof(18, restrict)
    const settled = [DidCommProofState.PresentationReceived, DidCommProofState.Done, DidCommProofState.Abandoned]
    const verified = nextEvent<DidCommProofStateChangedEvent, DidCommProofExchangeRecord>(
      node.agent,
      DidCommProofEventTypes.ProofStateChanged,
      (p) => (p.proofRecord.id === request.id && settled.includes(p.proofRecord.state) ? p.proofRecord : undefined),
    )
    const received = await wallet.proofRequest(request.threadId)
    const answer = await wallet.answerProofRequest(received.id)
    expect(answer.presented, answer.presented ? '' : answer.reason).toBe(true)

    const record = await verified
    expect(record.id).toBe(request.id)
    expect(record.errorMessage).toBeUndefined()
    expect(record.isVerified).toBe(true)
    const data = await node.agent.modules.didcomm.proofs.getFormatData(record.id)
    const proof = data.presentation?.anoncreds as {
      requested_proof: { revealed_attrs: Record<string, { raw: string }>; predicates: Record<string, unknown> }
    }
    expect(proof.requested_proof.revealed_attrs.name?.raw).toBe(ATTRIBUTES.name)
    expect(Object.keys(proof.requested_proof.predicates)).toEqual(['age'])
  }

  it('verifies a presentation with a revealed name and age >= 18 (present-proof v2)', () => presentAndVerify(false), 120_000)

  it(
    'verifies it when the request restricts to the credential definition (Credo sends restrictions as an array)',
    () => presentAndVerify(true),
    120_000,
  )

  it('cannot present when the predicate does not hold (age >= 65): the wallet declines', async () => {
    const request = await requestProof(65)
    const abandoned = nextEvent<DidCommProofStateChangedEvent, DidCommProofExchangeRecord>(
      node.agent,
      DidCommProofEventTypes.ProofStateChanged,
      (p) => (p.proofRecord.id === request.id && p.proofRecord.state === DidCommProofState.Abandoned ? p.proofRecord : undefined),
    )
    const received = await wallet.proofRequest(request.threadId)
    const answer = await wallet.answerProofRequest(received.id)
    expect(answer.presented).toBe(false)
    if (!answer.presented) expect(answer.reason).toMatch(/predicate/i)
    expect((await wallet.agent.modules.didcomm.proofs.getById(received.id)).state).toBe(DidCommProofState.Declined)
    // The wallet's problem report reaches the agent, which abandons the exchange unverified.
    const atAgent = await abandoned
    expect(atAgent.isVerified).not.toBe(true)
    expect(atAgent.errorMessage).toMatch(/cannot satisfy the proof request/)
  }, 120_000)
})
