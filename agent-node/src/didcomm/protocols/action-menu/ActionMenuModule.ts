/**
 * Action menu 1.0 (Aries RFC 0509) for Credo 0.6: `@credo-ts/action-menu` exists only for
 * Credo 0.7, so the protocol is written here, in the shape of `@credo-ts/question-answer`.
 */
import type { AgentContext, DependencyManager, Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { ActionMenuApi } from './ActionMenuApi.ts'
import { ActionMenuProblemReportHandler, MenuMessageHandler, MenuRequestMessageHandler, PerformMessageHandler } from './handlers/index.ts'
import { ActionMenuRole } from './models/index.ts'
import { ActionMenuRepository } from './repository/index.ts'
import { ActionMenuService } from './services/ActionMenuService.ts'

export class ActionMenuModule implements Module {
  readonly api = ActionMenuApi

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerSingleton(ActionMenuRepository)
    dependencyManager.registerSingleton(ActionMenuService)
  }

  async initialize(agentContext: AgentContext): Promise<void> {
    const service = agentContext.resolve(ActionMenuService)
    agentContext
      .resolve(DidCommMessageHandlerRegistry)
      .registerMessageHandlers([
        new MenuMessageHandler(service),
        new MenuRequestMessageHandler(service),
        new PerformMessageHandler(service),
        new ActionMenuProblemReportHandler(service),
      ])
    agentContext
      .resolve(DidCommFeatureRegistry)
      .register(
        new DidCommProtocol({ id: 'https://didcomm.org/action-menu/1.0', roles: [ActionMenuRole.Requester, ActionMenuRole.Responder] }),
      )
  }
}
