/**
 * One credential type (spec "Credential type"): the AnonCreds schema and credential definition
 * created for a name and version. Kept in the agent's storage so repeating a create returns the
 * existing type and claims can be checked against its attributes.
 */
import { randomUUID } from 'node:crypto'
import { BaseRecord } from '@credo-ts/core'

type CredentialTypeTags = { name: string; version: string; credentialDefinitionId: string }

export interface CredentialTypeProps {
  name: string
  version: string
  attributes: string[]
  schemaId: string
  credentialDefinitionId: string
  supportRevocation: boolean
}

export class CredentialTypeRecord extends BaseRecord<CredentialTypeTags> {
  static override readonly type = 'ParleyCredentialType'
  override readonly type = CredentialTypeRecord.type

  name!: string
  version!: string
  /** Attribute names, in the schema's order. */
  attributes!: string[]
  schemaId!: string
  credentialDefinitionId!: string
  /** As requested; revocation registries are not created yet (a later issue). */
  supportRevocation!: boolean

  constructor(props?: CredentialTypeProps) {
    super()
    if (props) {
      this.id = randomUUID()
      this.createdAt = new Date()
      Object.assign(this, props)
    }
  }

  getTags(): CredentialTypeTags {
    return { ...this._tags, name: this.name, version: this.version, credentialDefinitionId: this.credentialDefinitionId }
  }
}
