/**
 * 2060.io's receipts 1.0 protocol (https://didcomm.org/receipts/1.0): `message-receipts` report
 * what became of messages (received, viewed, ...), `request-receipts` ask for them. The module
 * only carries them; what a receipt means for Parley's delivery states is decided in
 * `messages/` (the delivery-state tracker).
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { messageReceiptsHandler, requestReceiptsHandler } from './handlers/ReceiptsHandlers.ts'
import { ReceiptsApi } from './ReceiptsApi.ts'
import { ReceiptsService } from './services/ReceiptsService.ts'

export class ReceiptsModule implements Module {
  readonly api = ReceiptsApi

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(ReceiptsService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    const service = agentContext.resolve(ReceiptsService)
    const handlers = agentContext.resolve(DidCommMessageHandlerRegistry)
    handlers.registerMessageHandler(messageReceiptsHandler(service))
    handlers.registerMessageHandler(requestReceiptsHandler(service))
    agentContext.resolve(DidCommFeatureRegistry).register(new DidCommProtocol({ id: 'https://didcomm.org/receipts/1.0' }))
  }
}
