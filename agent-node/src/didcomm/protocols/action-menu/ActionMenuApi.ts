/** The action-menu module's public surface (`agent.modules.actionMenu`). */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { DidCommConnectionService, type DidCommConnectionRecord, type DidCommMessage } from '@credo-ts/didcomm'
import { sendOnConnection } from '../../sendOnConnection.ts'
import { ActionMenu, ActionMenuOption, ActionMenuRole, ActionMenuSelection } from './models/index.ts'
import type { ActionMenuRecord } from './repository/index.ts'
import { ActionMenuService } from './services/ActionMenuService.ts'

/** A menu as callers give it: options named by `name`, shown by `title`/`description`. */
export interface ActionMenuInput {
  title: string
  description: string
  options: Array<{ name: string; title: string; description: string }>
}

@injectable()
export class ActionMenuApi {
  constructor(
    @inject(ActionMenuService) private readonly service: ActionMenuService,
    @inject(DidCommConnectionService) private readonly connections: DidCommConnectionService,
    @inject(AgentContext) private readonly agentContext: AgentContext,
  ) {}

  /**
   * Responder: sends `menu` as the connection's menu (it replaces any previous one).
   * `messageId` becomes the menu message's `@id`. @returns the record.
   */
  async sendMenu(options: { connectionId: string; menu: ActionMenuInput; messageId?: string }): Promise<ActionMenuRecord> {
    const connection = await this.connections.getById(this.agentContext, options.connectionId)
    const menu = new ActionMenu({ ...options.menu, options: options.menu.options.map((option) => new ActionMenuOption(option)) })
    const { message, record } = await this.service.createMenu(this.agentContext, connection, menu, options.messageId)
    await this.send(message, connection)
    return record
  }

  /** Requester: asks the responder for its menu. */
  async requestMenu(options: { connectionId: string }): Promise<void> {
    const connection = await this.connections.getById(this.agentContext, options.connectionId)
    const { message } = await this.service.createRequest(this.agentContext, connection)
    await this.send(message, connection)
  }

  /** Requester: performs option `name` of the menu shown. @throws when there is no such option. */
  async performAction(options: { connectionId: string; name: string; params?: Record<string, string> }): Promise<void> {
    const connection = await this.connections.getById(this.agentContext, options.connectionId)
    const { message } = await this.service.createPerform(this.agentContext, connection, new ActionMenuSelection(options))
    await this.send(message, connection)
  }

  /** The connection's menu record in `role` (requester: the menu shown; responder: the menu offered), or null. */
  findActiveMenu(options: { connectionId: string; role: ActionMenuRole }): Promise<ActionMenuRecord | null> {
    return this.service.find(this.agentContext, options.connectionId, options.role)
  }

  private async send(message: DidCommMessage, connection: DidCommConnectionRecord): Promise<void> {
    await sendOnConnection(this.agentContext, connection, message)
  }
}
