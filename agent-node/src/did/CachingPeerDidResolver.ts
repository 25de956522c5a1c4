/**
 * did:peer resolution without repeating the decoding on every message. Credo resolves the peer
 * DIDs of a connection several times per DIDComm message (to unpack: ours by recipient key; to
 * pack: ours and theirs), and each time decodes a long-form did:peer:4 (base58 of the whole
 * encoded document, then JSON and class-transformer) or expands a did:peer:2, about a millisecond
 * each here. Those documents are pure functions of the DID string (DIF Peer DID Method
 * Specification, "Method 4: Short Form and Long Form" and "Method 2: Multiple inception key
 * without doc"), so they are kept, per DID, in a bounded LRU cache. Short-form did:peer:4, 0 and 1
 * still go through Credo (they read a DidRecord, or cost nothing).
 *
 * Credo's resolver cache (`allowsCaching`) is off for did:peer, and would store JSON that every
 * hit turns back into a `DidDocument` through class-transformer, most of the cost saved here.
 * The cached `DidDocument` is shared by its callers, which read it (Credo builds new documents
 * with `DidDocumentBuilder`, never by changing a resolved one).
 */
import type { AgentContext, DidResolutionResult } from '@credo-ts/core'
import { PeerDidResolver } from '@credo-ts/core'
import { LRUCache } from 'lru-cache'

/** Resolved peer DIDs kept at most (a long-form did:peer:4 document is a few KiB). */
const CACHED_DOCUMENTS = 5_000

/** did:peer:2 (`did:peer:2.`) and long-form did:peer:4 (`did:peer:4<hash>:<encoded document>`). */
const SELF_CONTAINED = /^did:peer:(?:2\.|4[^:]+:.)/

/** Credo's `PeerDidResolver` with the documents of self-contained peer DIDs cached. */
export class CachingPeerDidResolver extends PeerDidResolver {
  private readonly documents = new LRUCache<string, DidResolutionResult>({ max: CACHED_DOCUMENTS })

  /**
   * Resolves `did` as Credo does; a did:peer:2 or long-form did:peer:4 resolved before comes
   * from the cache. Failed resolutions are not cached.
   */
  override async resolve(agentContext: AgentContext, did: string): Promise<DidResolutionResult> {
    if (!SELF_CONTAINED.test(did)) return super.resolve(agentContext, did)
    const cached = this.documents.get(did)
    if (cached) return cached
    const result = await super.resolve(agentContext, did)
    if (result.didDocument) this.documents.set(did, result)
    return result
  }
}
