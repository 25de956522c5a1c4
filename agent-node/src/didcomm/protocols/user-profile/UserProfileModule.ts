/**
 * 2060.io's user-profile 1.0 protocol (https://didcomm.org/user-profile/1.0): peers exchange
 * display name, pictures, description and preferred language. Received profiles are reported
 * (event), not stored: the controller keeps what it needs.
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { profileHandler, requestProfileHandler } from './handlers/UserProfileHandlers.ts'
import { UserProfileService } from './services/UserProfileService.ts'
import { UserProfileApi } from './UserProfileApi.ts'
import { UserProfileModuleConfig, type UserProfileModuleConfigOptions } from './UserProfileModuleConfig.ts'

export class UserProfileModule implements Module {
  readonly api = UserProfileApi
  readonly config: UserProfileModuleConfig

  constructor(options?: UserProfileModuleConfigOptions) {
    this.config = new UserProfileModuleConfig(options)
  }

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerInstance(UserProfileModuleConfig, this.config)
    dependencyManager.registerSingleton(UserProfileService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    const service = agentContext.resolve(UserProfileService)
    const handlers = agentContext.resolve(DidCommMessageHandlerRegistry)
    handlers.registerMessageHandler(profileHandler(service))
    handlers.registerMessageHandler(requestProfileHandler(service))
    agentContext.resolve(DidCommFeatureRegistry).register(new DidCommProtocol({ id: 'https://didcomm.org/user-profile/1.0' }))
  }
}
