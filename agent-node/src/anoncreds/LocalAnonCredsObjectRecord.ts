/**
 * The record the local AnonCreds registry keeps per registered object (schema or credential
 * definition), in the agent's own storage. Its id is the object's local identifier.
 */
import { BaseRecord, EventEmitter, InjectionSymbols, Repository, type AgentContext, type StorageService } from '@credo-ts/core'
import type { LocalObjectKind } from './identifiers.ts'

type LocalAnonCredsObjectTags = { kind: LocalObjectKind; issuerId: string }

/** One registered AnonCreds object, as JSON. */
export class LocalAnonCredsObjectRecord extends BaseRecord<LocalAnonCredsObjectTags> {
  static override readonly type = 'ParleyLocalAnonCredsObject'
  override readonly type = LocalAnonCredsObjectRecord.type

  kind!: LocalObjectKind
  issuerId!: string
  /** The object exactly as registered. */
  object!: Record<string, unknown>

  constructor(props?: { id: string; kind: LocalObjectKind; issuerId: string; object: Record<string, unknown> }) {
    super()
    if (props) {
      this.id = props.id
      this.createdAt = new Date()
      this.kind = props.kind
      this.issuerId = props.issuerId
      this.object = props.object
    }
  }

  getTags(): LocalAnonCredsObjectTags {
    return { ...this._tags, kind: this.kind, issuerId: this.issuerId }
  }
}

/** The repository of `LocalAnonCredsObjectRecord`s in `agentContext`'s storage. */
export function localObjectRepository(agentContext: AgentContext): Repository<LocalAnonCredsObjectRecord> {
  const { dependencyManager } = agentContext
  return new Repository(
    LocalAnonCredsObjectRecord,
    dependencyManager.resolve<StorageService<LocalAnonCredsObjectRecord>>(InjectionSymbols.StorageService),
    dependencyManager.resolve(EventEmitter),
  )
}
