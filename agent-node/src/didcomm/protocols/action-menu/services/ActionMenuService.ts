/**
 * The action-menu 1.0 state machine (Aries RFC 0509), one record per connection and role.
 *
 * Responder (agent-node): `createMenu` replaces the connection's menu (answering a pending
 * menu-request on its thread, else opening a new thread); `processRequest` answers a
 * menu-request with the current menu when there is one; `processPerform` accepts an option of the
 * current menu. The menu stays after a perform, so the wallet can show it again.
 * Requester (wallet): `createRequest`, `processMenu`, `createPerform`, `processProblemReport`.
 */
import { CredoError, EventEmitter, inject, injectable, type AgentContext } from '@credo-ts/core'
import type { DidCommConnectionRecord, DidCommInboundMessageContext, DidCommMessage } from '@credo-ts/didcomm'
import { ActionMenuEventTypes, type ActionMenuStateChangedEvent } from '../ActionMenuEvents.ts'
import { ActionMenuProblemReportError } from '../errors/ActionMenuProblemReportError.ts'
import { MenuMessage, MenuRequestMessage, PerformMessage, type ActionMenuProblemReportMessage } from '../messages/index.ts'
import { ActionMenu, ActionMenuRole, ActionMenuSelection, ActionMenuState, menuOffers } from '../models/index.ts'
import { ActionMenuRecord, ActionMenuRepository } from '../repository/index.ts'

@injectable()
export class ActionMenuService {
  constructor(
    @inject(ActionMenuRepository) private readonly repository: ActionMenuRepository,
    @inject(EventEmitter) private readonly eventEmitter: EventEmitter,
  ) {}

  /** The connection's record for `role`, or null. */
  find(agentContext: AgentContext, connectionId: string, role: ActionMenuRole): Promise<ActionMenuRecord | null> {
    return this.repository.findSingleByQuery(agentContext, { connectionId, role })
  }

  /**
   * Responder: makes `menu` the connection's menu. @returns the menu message to send (`@id` =
   * `messageId` when given) and the record.
   * @throws CredoError when two options share a name.
   */
  async createMenu(agentContext: AgentContext, connection: DidCommConnectionRecord, menu: ActionMenu, messageId?: string) {
    connection.assertReady()
    if (new Set(menu.options.map((option) => option.name)).size < menu.options.length)
      throw new CredoError('action menu options must have unique names')
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Responder)
    const answering = record?.state === ActionMenuState.PreparingRootMenu ? record.threadId : undefined
    const message = new MenuMessage({ id: messageId, ...menu, threadId: answering })
    const saved = await this.move(
      agentContext,
      record,
      { connectionId: connection.id, role: ActionMenuRole.Responder },
      {
        state: ActionMenuState.AwaitingSelection,
        threadId: message.threadId,
        menu,
      },
    )
    return { message, record: saved }
  }

  /**
   * Responder: a menu-request. @returns the current menu as the answer, or undefined when the
   * connection has no menu yet (the record then waits in preparing-root-menu for `createMenu`).
   */
  async processRequest(messageContext: DidCommInboundMessageContext<MenuRequestMessage>): Promise<MenuMessage | undefined> {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Responder)
    const menu = record?.menu
    const answer = menu ? new MenuMessage({ ...menu, threadId: message.threadId }) : undefined
    await this.move(
      agentContext,
      record,
      { connectionId: connection.id, role: ActionMenuRole.Responder },
      { state: answer ? ActionMenuState.AwaitingSelection : ActionMenuState.PreparingRootMenu, threadId: message.threadId, menu },
      message,
    )
    return answer
  }

  /**
   * Responder: a perform. @throws ActionMenuProblemReportError when the connection has no menu
   * (`timeout`) or the option is not in it (`unknown-option`).
   */
  async processPerform(messageContext: DidCommInboundMessageContext<PerformMessage>): Promise<void> {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Responder)
    if (!record?.menu) throw new ActionMenuProblemReportError('there is no menu to perform on; request the menu again', 'timeout')
    if (!menuOffers(record.menu, message.name))
      throw new ActionMenuProblemReportError(`'${message.name}' is not an option of the current menu`, 'unknown-option')
    record.performedAction = new ActionMenuSelection({ name: message.name, params: message.params })
    await this.move(agentContext, record, record, { state: ActionMenuState.Done, threadId: record.threadId, menu: record.menu }, message)
  }

  /** Requester: asks for the menu. @returns the menu-request to send and the record. */
  async createRequest(agentContext: AgentContext, connection: DidCommConnectionRecord) {
    connection.assertReady()
    const message = new MenuRequestMessage({})
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Requester)
    await this.move(
      agentContext,
      record,
      { connectionId: connection.id, role: ActionMenuRole.Requester },
      {
        state: ActionMenuState.AwaitingRootMenu,
        threadId: message.threadId,
      },
    )
    return { message }
  }

  /** Requester: a menu arrived; it replaces the one shown. */
  async processMenu(messageContext: DidCommInboundMessageContext<MenuMessage>): Promise<void> {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Requester)
    const menu = new ActionMenu({ title: message.title, description: message.description, options: message.options })
    await this.move(
      agentContext,
      record,
      { connectionId: connection.id, role: ActionMenuRole.Requester },
      {
        state: ActionMenuState.PreparingSelection,
        threadId: message.threadId,
        menu,
      },
      message,
    )
  }

  /**
   * Requester: performs option `name` of the menu shown. @returns the perform to send.
   * @throws CredoError when no menu is shown or `name` is not one of its options.
   */
  async createPerform(agentContext: AgentContext, connection: DidCommConnectionRecord, selection: ActionMenuSelection) {
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Requester)
    if (!record?.menu) throw new CredoError(`no menu is shown on connection ${connection.id}`)
    if (!menuOffers(record.menu, selection.name)) throw new CredoError(`'${selection.name}' is not an option of the menu`)
    const message = new PerformMessage({ name: selection.name, params: selection.params, threadId: record.threadId })
    record.performedAction = selection
    await this.move(agentContext, record, record, { state: ActionMenuState.Done, threadId: record.threadId, menu: record.menu })
    return { message }
  }

  /** Requester: the responder refused; the menu is cleared (state null) until a new one comes. */
  async processProblemReport(messageContext: DidCommInboundMessageContext<ActionMenuProblemReportMessage>): Promise<void> {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    const record = await this.find(agentContext, connection.id, ActionMenuRole.Requester)
    if (!record) return
    await this.move(agentContext, record, record, { state: ActionMenuState.Null, threadId: record.threadId, menu: undefined }, message)
  }

  /** Saves `record` (or a new one for `owner`) with `next`, and emits the state change. */
  private async move(
    agentContext: AgentContext,
    record: ActionMenuRecord | null,
    owner: { connectionId: string; role: ActionMenuRole },
    next: { state: ActionMenuState; threadId: string; menu?: ActionMenu },
    message?: DidCommMessage,
  ): Promise<ActionMenuRecord> {
    const previousState = record?.state ?? null
    const target = record ?? new ActionMenuRecord({ ...owner, ...next })
    Object.assign(target, next)
    if (record) await this.repository.update(agentContext, target)
    else await this.repository.save(agentContext, target)
    this.eventEmitter.emit<ActionMenuStateChangedEvent>(agentContext, {
      type: ActionMenuEventTypes.ActionMenuStateChanged,
      payload: { actionMenuRecord: target.clone(), previousState, message },
    })
    return target
  }
}
