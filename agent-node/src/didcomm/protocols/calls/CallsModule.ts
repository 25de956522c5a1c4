/**
 * 2060.io's calls 1.0 protocol (https://didcomm.org/calls/1.0): voice/video call signalling over
 * DIDComm (offer, accept, reject, end), the WebRTC details travelling in `parameters`.
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { CallsApi } from './CallsApi.ts'
import { callMessageHandler } from './handlers/CallMessageHandler.ts'
import { CallsService } from './services/CallsService.ts'

export class CallsModule implements Module {
  readonly api = CallsApi

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(CallsService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    agentContext.resolve(DidCommMessageHandlerRegistry).registerMessageHandler(callMessageHandler(agentContext.resolve(CallsService)))
    agentContext.resolve(DidCommFeatureRegistry).register(new DidCommProtocol({ id: 'https://didcomm.org/calls/1.0' }))
  }
}
