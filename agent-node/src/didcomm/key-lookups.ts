/**
 * The two lookups by key that every inbound DIDComm message makes, kept once found. Credo 0.6.3
 * finds, for each envelope, our DID by the key it is addressed to (to know which KMS key opens
 * it), and then the connection by the sender's and recipient's keys: our DID by key again, their
 * DID by key, and the connection by both DIDs. That is four tag queries of the record store per
 * message (`DidCommEnvelopeService.extractOurRecipientKeyWithKeyId`,
 * `DidCommConnectionService.findByKeys`), the most expensive statements of agent-node's message
 * path (bench/README.md, "chat-round-trip").
 *
 * What is kept is only what cannot change. A peer DID names its keys for good (DIF Peer DID
 * Method Specification: the DID is the key itself (method 0), encodes the document (methods 2 and
 * long-form 4) or is a hash of it (method 1 and short-form 4)), so the key → DID step is kept for
 * peer DIDs only; the DIDs of a public DID (did:web,
 * did:webvh) may rotate their keys, and go through Credo every time. The connection itself is
 * never kept: each message reads its record by id (a primary-key read, on every instance of a
 * cluster the current one) and checks that it still links the two DIDs as Credo's query does
 * (current DIDs, or one of them among the previous ones of a DID rotation) and is ready; if not,
 * the full lookup runs again.
 */
import {
  type AgentContext,
  type DependencyManager,
  DidRepository,
  DidResolverService,
  EventEmitter,
  InjectionSymbols,
  type Kms,
  type Logger,
  type Module,
  inject,
  injectable,
  isValidPeerDid,
} from '@credo-ts/core'
import {
  type DidCommConnectionRecord,
  DidCommConnectionRepository,
  DidCommConnectionService,
  DidCommDocumentService,
} from '@credo-ts/didcomm'
import { LRUCache } from 'lru-cache'

/** Entries each cache keeps at most: one per key of ours, one per pair of keys in use. */
const CACHED_LOOKUPS = 10_000

/** The cache key of `keys` in `agentContext` (an agent with tenants has several contexts). */
const scoped = (agentContext: AgentContext, ...keys: Kms.PublicJwk[]) =>
  [agentContext.contextCorrelationId, ...keys.map((key) => key.fingerprint)].join(' ')

type CreatedDidWithKeys = Awaited<ReturnType<DidCommDocumentService['resolveCreatedDidDocumentWithKeysByRecipientKey']>>

/** Credo's `DidCommDocumentService`, with our peer DIDs kept by the keys they name. */
@injectable()
export class KeyedDocumentService extends DidCommDocumentService {
  private readonly createdByKey = new LRUCache<string, CreatedDidWithKeys>({ max: CACHED_LOOKUPS })

  constructor(@inject(DidResolverService) didResolverService: DidResolverService, @inject(DidRepository) didRepository: DidRepository) {
    super(didResolverService, didRepository)
  }

  /**
   * Our DID document whose keys include `publicJwk`, with the KMS key ids of its keys, as Credo
   * finds it; a peer DID found before comes from memory.
   * @throws RecordNotFoundError when no DID of ours has the key (Credo then looks for a mediator
   *   routing key or an invitation's key: neither is kept)
   */
  override async resolveCreatedDidDocumentWithKeysByRecipientKey(agentContext: AgentContext, publicJwk: Kms.PublicJwk) {
    const cacheKey = scoped(agentContext, publicJwk)
    const known = this.createdByKey.get(cacheKey)
    if (known) return known
    const found = await super.resolveCreatedDidDocumentWithKeysByRecipientKey(agentContext, publicJwk)
    if (isValidPeerDid(found.didDocument.id)) this.createdByKey.set(cacheKey, found)
    return found
  }
}

/** The DIDs a pair of keys was found to belong to, and the connection between them. */
interface LinkedDids {
  connectionId: string
  ourDid: string
  theirDid: string
}

/** Whether `connection` links `ourDid` and `theirDid` as `DidCommConnectionRepository.findByDids` matches them. */
function links(connection: DidCommConnectionRecord, { ourDid, theirDid }: LinkedDids): boolean {
  return (
    (connection.did === ourDid && (connection.theirDid === theirDid || (connection.previousTheirDids ?? []).includes(theirDid))) ||
    ((connection.previousDids ?? []).includes(ourDid) && connection.theirDid === theirDid)
  )
}

/** Credo's `DidCommConnectionService`, finding a connection by keys from the DIDs found before. */
@injectable()
export class KeyedConnectionService extends DidCommConnectionService {
  private readonly didsByKeys = new LRUCache<string, LinkedDids>({ max: CACHED_LOOKUPS })

  constructor(
    @inject(InjectionSymbols.Logger) logger: Logger,
    @inject(DidCommConnectionRepository) connectionRepository: DidCommConnectionRepository,
    @inject(DidRepository) private readonly dids: DidRepository,
    @inject(EventEmitter) eventEmitter: EventEmitter,
  ) {
    super(logger, connectionRepository, dids, eventEmitter)
  }

  /**
   * The ready connection on which `senderKey` (theirs) and `recipientKey` (ours) talk, or null:
   * Credo's lookup (their DID by key, our DID by key, the connection by both DIDs). A pair of peer
   * DIDs found before skips the two DID lookups and the query: the connection is read by id and
   * must still link both DIDs and be ready, or the full lookup runs.
   * @throws RecordDuplicateError when more than one DID or connection matches (Credo's)
   */
  override async findByKeys(
    agentContext: AgentContext,
    { senderKey, recipientKey }: { senderKey: Kms.PublicJwk; recipientKey: Kms.PublicJwk },
  ): Promise<DidCommConnectionRecord | null> {
    const cacheKey = scoped(agentContext, senderKey, recipientKey)
    const known = this.didsByKeys.get(cacheKey)
    if (known) {
      const connection = await this.findById(agentContext, known.connectionId)
      if (connection?.isReady && links(connection, known)) return connection
      this.didsByKeys.delete(cacheKey)
    }
    const theirDid = (await this.dids.findReceivedDidByRecipientKey(agentContext, senderKey))?.did
    if (!theirDid) return null
    const ourDid = (await this.dids.findCreatedDidByRecipientKey(agentContext, recipientKey))?.did
    if (!ourDid) return null
    const connection = await this.findByDids(agentContext, { ourDid, theirDid })
    if (!connection?.isReady) return null
    if (isValidPeerDid(ourDid) && isValidPeerDid(theirDid)) this.didsByKeys.set(cacheKey, { connectionId: connection.id, ourDid, theirDid })
    return connection
  }
}

/** Puts `KeyedDocumentService` and `KeyedConnectionService` in Credo's place; registered after `DidCommModule`. */
export class KeyLookupsModule implements Module {
  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(DidCommDocumentService, KeyedDocumentService)
    dependencyManager.registerSingleton(DidCommConnectionService, KeyedConnectionService)
  }
}
