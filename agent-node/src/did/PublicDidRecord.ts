/**
 * The agent's public DID as kept in its storage: one record per configured DID
 * (AGENT_PUBLIC_DID, normalized), so restarting with the same setting finds the same DID.
 */
import { BaseRecord } from '@credo-ts/core'
import type { DIDDoc, DIDLog } from 'didwebvh-ts'
import type { PublicDidMethod } from './identifier.ts'

type PublicDidTags = { did: string; method: PublicDidMethod }

export interface PublicDidRecordProps {
  /** The configured DID (`did:webvh:<host>`, `did:web:<host>`): the record id. */
  configured: string
  method: PublicDidMethod
  /** The DID itself; for did:webvh with its SCID (`did:webvh:<SCID>:<host>`). */
  did: string
  /** KMS id of the Ed25519 key of the document (authentication, assertion, key agreement). */
  keyId: string
  /** KMS id of the did:webvh update key that signs log entries; none for did:web. */
  updateKeyId?: string
  /** The current DID document. */
  document: DIDDoc
  /** did:webvh only: the whole log, oldest entry first, as served in `did.jsonl`. */
  log?: DIDLog
}

/** One public DID of this agent. */
export class PublicDidRecord extends BaseRecord<PublicDidTags> {
  static override readonly type = 'ParleyPublicDid'
  override readonly type = PublicDidRecord.type

  method!: PublicDidMethod
  did!: string
  keyId!: string
  updateKeyId?: string
  document!: DIDDoc
  log?: DIDLog

  constructor(props?: PublicDidRecordProps) {
    super()
    if (props) {
      this.id = props.configured
      this.createdAt = new Date()
      this.method = props.method
      this.did = props.did
      this.keyId = props.keyId
      this.updateKeyId = props.updateKeyId
      this.document = props.document
      this.log = props.log
    }
  }

  getTags(): PublicDidTags {
    return { ...this._tags, did: this.did, method: this.method }
  }
}
