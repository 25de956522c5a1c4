/**
 * One AnonCreds object (schema or credential definition) this agent published, kept in its own
 * storage and served on the public interface. Its id is the object's full identifier
 * (`identifiers.ts`).
 */
import { BaseRecord } from '@credo-ts/core'
import type { AnonCredsObjectKind } from './identifiers.ts'

type AnonCredsObjectTags = { kind: AnonCredsObjectKind; issuerId: string }

/** A published object, exactly as registered. */
export class AnonCredsObjectRecord extends BaseRecord<AnonCredsObjectTags> {
  static override readonly type = 'ParleyAnonCredsObject'
  override readonly type = AnonCredsObjectRecord.type

  kind!: AnonCredsObjectKind
  issuerId!: string
  object!: Record<string, unknown>

  constructor(props?: { id: string; kind: AnonCredsObjectKind; issuerId: string; object: Record<string, unknown> }) {
    super()
    if (props) {
      this.id = props.id
      this.createdAt = new Date()
      this.kind = props.kind
      this.issuerId = props.issuerId
      this.object = props.object
    }
  }

  getTags(): AnonCredsObjectTags {
    return { ...this._tags, kind: this.kind, issuerId: this.issuerId }
  }
}
