import type { EngineOps } from './context.ts'
import { revocationNotSupported } from './errors.ts'

/** The revocation part of the interface: every function throws "revocation not supported yet". */
export const revocationOps: EngineOps<
  | 'createRevocationRegistryDefinition'
  | 'createOrUpdateRevocationState'
  | 'createRevocationStatusList'
  | 'updateRevocationStatusListTimestampOnly'
  | 'updateRevocationStatusList'
  | 'revocationRegistryDefinitionGetAttribute'
  | 'revocationRegistryDefinitionFromJson'
  | 'revocationRegistryFromJson'
  | 'revocationStatusListFromJson'
  | 'revocationRegistryDefinitionPrivateFromJson'
  | 'revocationStateFromJson'
> = () => ({
  createRevocationRegistryDefinition: () => revocationNotSupported(),
  createOrUpdateRevocationState: () => revocationNotSupported(),
  createRevocationStatusList: () => revocationNotSupported(),
  updateRevocationStatusListTimestampOnly: () => revocationNotSupported(),
  updateRevocationStatusList: () => revocationNotSupported(),
  revocationRegistryDefinitionGetAttribute: () => revocationNotSupported(),
  revocationRegistryDefinitionFromJson: () => revocationNotSupported(),
  revocationRegistryFromJson: () => revocationNotSupported(),
  revocationStatusListFromJson: () => revocationNotSupported(),
  revocationRegistryDefinitionPrivateFromJson: () => revocationNotSupported(),
  revocationStateFromJson: () => revocationNotSupported(),
})
