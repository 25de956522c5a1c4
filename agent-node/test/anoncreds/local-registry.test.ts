/**
 * The local AnonCreds registry: content-derived identifiers, idempotent registration, resolution
 * from the agent's own storage only, and the answers for what it does not hold or support.
 */
import '../support/anoncreds-engine.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCAL_IDENTIFIER, LocalAnonCredsRegistry, localIssuerId } from '../../src/anoncreds/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/terminal-wallet/WalletPeer.ts'

const issuerId = localIssuerId('tester')
const schema = { issuerId, name: 'person', version: '1.0', attrNames: ['name', 'age'] }

describe('LocalAnonCredsRegistry', () => {
  const registry = new LocalAnonCredsRegistry()
  let a: WalletPeer
  let b: WalletPeer

  beforeAll(async () => {
    a = await WalletPeer.create({ label: 'a', logger: createLogger('silent') })
    b = await WalletPeer.create({ label: 'b', logger: createLogger('silent') })
  })
  afterAll(async () => {
    await a?.stop()
    await b?.stop()
  })

  it('registers a schema under a content-derived id and resolves it from the same storage', async () => {
    const first = await registry.registerSchema(a.agent.context, { schema, options: {} })
    expect(first.schemaState.state).toBe('finished')
    const schemaId = first.schemaState.schemaId!
    expect(schemaId).toMatch(/^parley-local:tester\/schema\/[A-Za-z0-9_-]{43}$/)
    expect(LOCAL_IDENTIFIER.test(schemaId)).toBe(true)
    expect((await registry.registerSchema(a.agent.context, { schema, options: {} })).schemaState.schemaId).toBe(schemaId)
    expect((await registry.getSchema(a.agent.context, schemaId)).schema).toEqual(schema)
  })

  it('does not resolve from another agent and says why', async () => {
    const { schemaState } = await registry.registerSchema(a.agent.context, { schema, options: {} })
    const elsewhere = await registry.getSchema(b.agent.context, schemaState.schemaId!)
    expect(elsewhere.schema).toBeUndefined()
    expect(elsewhere.resolutionMetadata.error).toBe('notFound')
  })

  it('refuses issuers that are not local and ids of the wrong kind; no revocation', async () => {
    const foreign = await registry.registerSchema(a.agent.context, { schema: { ...schema, issuerId: 'did:key:z6Mk' }, options: {} })
    expect(foreign.schemaState.state).toBe('failed')
    const { schemaState } = await registry.registerSchema(a.agent.context, { schema, options: {} })
    expect((await registry.getCredentialDefinition(a.agent.context, schemaState.schemaId!)).resolutionMetadata.error).toBe('invalid')
    expect((await registry.registerRevocationStatusList()).revocationStatusListState.state).toBe('failed')
  })
})
