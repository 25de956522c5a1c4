/**
 * Credo's DID resolver for did:web and did:webvh, on `resolve.ts` instead of Credo's default
 * (`web-did-resolver`, which fetches with the global fetch; Credo has none for did:webvh):
 * agent-node gives it its outbound guard's fetch, so a DID a peer or an API caller hands the agent
 * (an invitation's service, a connection's DID) cannot make it call its own network. A wallet
 * needs it to connect through an invitation naming a public DID (`services: ["did:webvh:…"]`).
 */
import { DidDocument, JsonTransformer, type AgentContext, type DidResolutionResult, type DidResolver } from '@credo-ts/core'
import { DidResolutionError, resolveDidDocument, type ResolutionFetch } from './resolve.ts'

/** Resolves did:web and did:webvh DIDs with `fetch` (bounded, no redirects; did:webvh logs verified; see `resolve.ts`). */
export class WebDidResolver implements DidResolver {
  readonly supportedMethods = ['web', 'webvh']
  readonly allowsCaching = true
  readonly allowsLocalDidRecord = true

  /** @param fetch what resolutions fetch with (agent-node: `OutboundGuard.fetch`) */
  constructor(private readonly fetch: ResolutionFetch) {}

  /** The DID document, or `notFound` / `invalidDid` in the resolution metadata; never throws for a bad DID. */
  async resolve(_agentContext: AgentContext, did: string): Promise<DidResolutionResult> {
    try {
      const document = await resolveDidDocument(did, this.fetch)
      return {
        didDocument: JsonTransformer.fromJSON(document, DidDocument),
        didDocumentMetadata: {},
        didResolutionMetadata: { contentType: 'application/did+json' },
      }
    } catch (error) {
      if (!(error instanceof DidResolutionError)) throw error
      return {
        didDocument: null,
        didDocumentMetadata: {},
        didResolutionMetadata: { error: error.code === 'notFound' ? 'notFound' : 'invalidDid', message: error.message },
      }
    }
  }
}
