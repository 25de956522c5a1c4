/**
 * 2060.io's MRTD 1.0 protocol (https://didcomm.org/mrtd/1.0): a verifier asks the holder's wallet
 * to scan a passport's machine-readable zone or read its chip (ICAO 9303 eMRTD); the wallet
 * answers with the data or a problem report (refused, timed out).
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { mrtdMessageHandler } from './handlers/MrtdMessageHandler.ts'
import { MrtdApi } from './MrtdApi.ts'
import { MrtdService } from './services/MrtdService.ts'

export class MrtdModule implements Module {
  readonly api = MrtdApi

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(MrtdService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    agentContext.resolve(DidCommMessageHandlerRegistry).registerMessageHandler(mrtdMessageHandler(agentContext.resolve(MrtdService)))
    agentContext.resolve(DidCommFeatureRegistry).register(new DidCommProtocol({ id: 'https://didcomm.org/mrtd/1.0' }))
  }
}
