/**
 * `contextual-menu-update`, `contextual-menu-select` and `contextual-menu-request`: action-menu
 * 1.0 (Aries RFC 0509, `didcomm/protocols/action-menu`). An option's `id` is the RFC option `name`; the
 * menu message's `@id` is Parley's message id.
 */
import {
  ActionMenuEventTypes,
  ActionMenuRole,
  MenuRequestMessage,
  PerformMessage,
  type ActionMenuStateChangedEvent,
} from '../../didcomm/protocols/action-menu/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

/** `contextual-menu-update` -> menu (replacing the connection's menu). */
export const sendContextualMenuUpdate: MessageSender<'contextual-menu-update'> = async (body, context) => {
  await context.agent.modules.actionMenu.sendMenu({
    connectionId: context.connection.id,
    messageId: context.messageId,
    menu: {
      title: body.title,
      description: body.description ?? '',
      options: body.options.map((option) => ({ name: option.id, title: option.title, description: option.description ?? '' })),
    },
  })
}

/** Performs -> `contextual-menu-select`; menu-requests -> `contextual-menu-request`. */
export const receiveActionMenu: MessageReceiver = (agent, receive) => {
  agent.events.on<ActionMenuStateChangedEvent>(ActionMenuEventTypes.ActionMenuStateChanged, ({ payload }) => {
    const { actionMenuRecord: record, message } = payload
    if (record.role !== ActionMenuRole.Responder || !message) return
    const base = {
      id: message.id,
      connectionId: record.connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: envelopeThreadId(message),
    }
    if (message instanceof PerformMessage) receive({ ...base, type: 'contextual-menu-select', selectionId: message.name })
    else if (message instanceof MenuRequestMessage) receive({ ...base, type: 'contextual-menu-request' })
  })
}
