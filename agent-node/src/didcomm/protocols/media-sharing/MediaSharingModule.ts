/**
 * 2060.io's media-sharing 1.0 protocol (https://didcomm.org/media-sharing/1.0), as the Hologram
 * wallet speaks it: `share-media` in both directions. (`request-media` is not implemented: no
 * Parley flow asks a peer for media by id.)
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { MediaSharingApi } from './MediaSharingApi.ts'
import { shareMediaHandler } from './handlers/ShareMediaHandler.ts'
import { MediaSharingService } from './services/MediaSharingService.ts'

export class MediaSharingModule implements Module {
  readonly api = MediaSharingApi

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(MediaSharingService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    const service = agentContext.resolve(MediaSharingService)
    agentContext.resolve(DidCommMessageHandlerRegistry).registerMessageHandler(shareMediaHandler(service))
    agentContext
      .resolve(DidCommFeatureRegistry)
      .register(new DidCommProtocol({ id: 'https://didcomm.org/media-sharing/1.0', roles: ['sender', 'receiver'] }))
  }
}
