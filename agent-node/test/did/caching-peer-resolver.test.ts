/**
 * did:peer documents decoded once (`CachingPeerDidResolver`): a long-form did:peer:4 resolves to
 * the same document as Credo's resolver gives, the second time from the cache; failures are not
 * kept; Credo adds no second did:peer resolver beside it. Unit test: the agent context is a
 * stand-in (self-contained peer DIDs read nothing from it).
 */
import { randomBytes } from 'node:crypto'
import {
  type AgentContext,
  DidCommV1Service,
  DidDocumentBuilder,
  DidsModuleConfig,
  PeerDidResolver,
  TypedArrayEncoder,
  VerificationMethod,
  didDocumentToNumAlgo4Did,
} from '@credo-ts/core'
import { describe, expect, it } from 'vitest'
import { CachingPeerDidResolver } from '../../src/did/CachingPeerDidResolver.ts'

const agentContext = {
  dependencyManager: { resolve: () => ({}) },
  config: { logger: { error: () => undefined } },
} as unknown as AgentContext

function longFormPeerDid(): string {
  const document = new DidDocumentBuilder('')
    .addVerificationMethod(
      new VerificationMethod({
        id: '#key-1',
        type: 'Ed25519VerificationKey2018',
        controller: '#id',
        publicKeyBase58: TypedArrayEncoder.toBase58(randomBytes(32)),
      }),
    )
    .addAuthentication('#key-1')
    .addService(new DidCommV1Service({ id: '#didcomm-1', serviceEndpoint: 'ws://127.0.0.1:1', recipientKeys: ['#key-1'] }))
    .build()
  return didDocumentToNumAlgo4Did(document).longFormDid
}

describe('CachingPeerDidResolver', () => {
  it('resolves a long-form did:peer:4 as Credo does, then from the cache', async () => {
    const did = longFormPeerDid()
    const resolver = new CachingPeerDidResolver()
    const first = await resolver.resolve(agentContext, did)
    const plain = await new PeerDidResolver().resolve(agentContext, did)
    expect(first.didDocument?.toJSON()).toEqual(plain.didDocument?.toJSON())
    expect(first.didDocument?.didCommServices[0]?.serviceEndpoint).toBe('ws://127.0.0.1:1')
    const second = await resolver.resolve(agentContext, did)
    expect(second).toBe(first) // the cached result, not decoded again
  })

  it('keeps no failed resolution', async () => {
    const resolver = new CachingPeerDidResolver()
    const broken = `${longFormPeerDid().slice(0, -8)}zzzzzzzz`
    const first = await resolver.resolve(agentContext, broken)
    expect(first.didDocument).toBeNull()
    const second = await resolver.resolve(agentContext, broken)
    expect(second).not.toBe(first)
    expect(second.didResolutionMetadata.error).toBe('notFound')
  })

  it('takes the place of Credo’s did:peer resolver', () => {
    const config = new DidsModuleConfig({ resolvers: [new CachingPeerDidResolver()] })
    const peerResolvers = config.resolvers.filter((resolver) => resolver.supportedMethods.includes('peer'))
    expect(peerResolvers).toHaveLength(1)
    expect(peerResolvers[0]).toBeInstanceOf(CachingPeerDidResolver)
  })
})
