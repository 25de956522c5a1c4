/**
 * Creates the agent's public DID at first start and keeps it current.
 *
 * - First start with a given AGENT_PUBLIC_DID: new Ed25519 key(s) in the KMS, then
 *   - did:web: the document is built and stored;
 *   - did:webvh: didwebvh-ts creates the first log entry (SCID derived from it, signed by a
 *     separate update key, `alsoKnownAs` the parallel did:web), stored with the document.
 * - Later starts with the same setting reuse the stored DID. When the announced services changed
 *   (AGENT_ENDPOINTS or the public URL), the document is updated: did:web replaces it; did:webvh
 *   appends a signed log entry, so resolvers see the history. The keys stay the same.
 * - A different AGENT_PUBLIC_DID is a different DID: a new one is created beside the old one,
 *   whose AnonCreds objects are then no longer served.
 */
import { DidDocument, DidDocumentRole, DidRepository, DidsApi, type AgentContext } from '@credo-ts/core'
import { createDID, generateParallelDidWeb, updateDID, type DIDDoc } from 'didwebvh-ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { publicDidDocument, publicDidServices, SIGNING_KEY_FRAGMENT, type PublicDidServices } from './document.ts'
import type { ConfiguredPublicDid } from './identifier.ts'
import { createEd25519Key, ed25519Multikey, ed25519Verifier, getEd25519Key, KmsDidLogSigner } from './keys.ts'
import { PublicDidRecord } from './PublicDidRecord.ts'

/** What `ensurePublicDid` did, for the start-up log. */
export type PublicDidOutcome = 'created' | 'unchanged' | 'updated'

/**
 * Finds or creates the public DID `configured`, updating its services to `services` if they changed.
 * @returns the stored record and what happened.
 */
export async function ensurePublicDid(
  agentContext: AgentContext,
  configured: ConfiguredPublicDid,
  services: PublicDidServices,
): Promise<{ record: PublicDidRecord; outcome: PublicDidOutcome }> {
  const repository = recordRepository(agentContext, PublicDidRecord)
  const existing = await repository.findById(agentContext, configured.configured)
  if (!existing) {
    const record = await createPublicDid(agentContext, configured, services)
    await repository.save(agentContext, record)
    return { record, outcome: 'created' }
  }
  const wanted = publicDidServices(existing.did, services)
  if (JSON.stringify(existing.document.service) === JSON.stringify(wanted)) return { record: existing, outcome: 'unchanged' }

  if (existing.method === 'webvh') {
    const updateKey = await getEd25519Key(agentContext, existing.updateKeyId!)
    const updated = await updateDID({
      log: existing.log!,
      signer: new KmsDidLogSigner(agentContext, updateKey),
      verifier: ed25519Verifier,
      services: wanted,
    })
    existing.log = updated.log
    existing.document = updated.doc
  } else {
    const key = await getEd25519Key(agentContext, existing.keyId)
    existing.document = publicDidDocument(existing.did, key.publicKey, services)
  }
  await repository.update(agentContext, existing)
  return { record: existing, outcome: 'updated' }
}

/**
 * Makes the public DID one of Credo's own ("created") DIDs, with its current document and the KMS
 * id of its Ed25519 key (`#key-1`; the X25519 key agreement is derived from it), so Credo can
 * answer a DID Exchange request sent to it through an invitation naming it (RFC 0434 `services`
 * holding the DID), sign the response with it, and resolve it locally. Idempotent: called at every
 * start, after `ensurePublicDid`, it replaces the document Credo holds with the current one.
 *
 * Credo's import looks the DID up, then stores it: two instances importing at once (one
 * database, `cluster/`) stored it twice, and with two records Credo's lookup by recipient key
 * fails, so no DID Exchange through the public invitation decrypts ("No corresponding recipient
 * key found"). Callers hold the `public-did` lease; a second record stored before that is removed.
 */
export async function registerPublicDidWithCredo(agentContext: AgentContext, record: PublicDidRecord): Promise<void> {
  const dids = agentContext.resolve(DidRepository)
  const created = await dids.findByQuery(agentContext, { did: record.did, role: DidDocumentRole.Created })
  for (const extra of created.slice(1)) await dids.delete(agentContext, extra)
  await agentContext.resolve(DidsApi).import({
    did: record.did,
    didDocument: DidDocument.fromJSON(record.document),
    keys: [{ didDocumentRelativeKeyId: `#${SIGNING_KEY_FRAGMENT}`, kmsKeyId: record.keyId }],
    overwrite: true,
  })
}

/** The public DID record of `did` (the resolved DID, SCID included), if this agent holds it. */
export async function findPublicDid(agentContext: AgentContext, did: string): Promise<PublicDidRecord | null> {
  return recordRepository(agentContext, PublicDidRecord).findSingleByQuery(agentContext, { did })
}

/**
 * The did:web document served at `/.well-known/did.json`: the document itself for did:web; for
 * did:webvh the parallel did:web document (did:webvh v1.0, "Publishing a parallel did:web DID").
 */
export function didWebDocument(record: PublicDidRecord): DIDDoc {
  return record.method === 'webvh' ? generateParallelDidWeb(record.did, record.document) : record.document
}

async function createPublicDid(
  agentContext: AgentContext,
  configured: ConfiguredPublicDid,
  services: PublicDidServices,
): Promise<PublicDidRecord> {
  const key = await createEd25519Key(agentContext)
  if (configured.method === 'web') {
    const did = configured.configured
    return new PublicDidRecord({ ...configured, did, keyId: key.keyId, document: publicDidDocument(did, key.publicKey, services) })
  }
  const updateKey = await createEd25519Key(agentContext)
  const created = await createDID({
    address: configured.host,
    signer: new KmsDidLogSigner(agentContext, updateKey),
    verifier: ed25519Verifier,
    updateKeys: [ed25519Multikey(updateKey.publicKey)],
    // `{SCID}` is replaced once the SCID is known. (The `{DID}` placeholder the library also
    // accepts yields a first entry its own resolver rejects: the SCID is hashed over `{DID}`.)
    didDocument: publicDidDocument(configured.configured.replace(/^did:webvh:/, 'did:webvh:{SCID}:'), key.publicKey, services),
    alsoKnownAsWeb: true,
  })
  return new PublicDidRecord({
    ...configured,
    did: created.did,
    keyId: key.keyId,
    updateKeyId: updateKey.keyId,
    document: created.doc,
    log: created.log,
  })
}
