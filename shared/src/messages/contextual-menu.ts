/**
 * The chat's contextual menu, carried by the action-menu 1.0 protocol (Aries RFC 0509):
 * - `contextual-menu-update` (controller to user): the menu (RFC `menu`; each option's `id` is
 *   the RFC option `name`);
 * - `contextual-menu-select` (user to controller): the option the user performed (RFC `perform`);
 * - `contextual-menu-request` (user to controller): the wallet asked for the menu (RFC
 *   `menu-request`). agent-node answers it with the current menu itself; the event lets the
 *   controller refresh it. A type of 2060.io's vs-agent, not in the spec's table.
 * Field names follow vs-agent (`title`, `description`, `options: [{ id, title, description }]`,
 * `selectionId`).
 */
import { z } from 'zod'
import { boundedName, MessageEnvelopeBase, SendMessageBase, uniqueBy } from './common.ts'

/** One entry of the contextual menu. */
export const ContextualMenuOption = z.strictObject({
  id: boundedName(256),
  title: z.string().min(1).max(1024),
  description: z.string().max(4096).optional(),
})
export type ContextualMenuOption = z.infer<typeof ContextualMenuOption>

/**
 * `type: contextual-menu-update` sent by the controller; it replaces the connection's menu (no
 * options: an empty menu). `threadId` is not used: the menu travels on the protocol's own thread
 * (a pending menu-request's, else a new one).
 */
export const ContextualMenuUpdateMessageBody = SendMessageBase.extend({
  type: z.literal('contextual-menu-update'),
  title: z.string().min(1).max(1024),
  description: z.string().max(4096).optional(),
  options: z.array(ContextualMenuOption).max(64).superRefine(uniqueBy('id', 'contextual-menu-select reports the id')),
})
export type ContextualMenuUpdateMessageBody = z.infer<typeof ContextualMenuUpdateMessageBody>

/** `type: contextual-menu-select` received from the user: `selectionId` is the chosen option's `id`. */
export const ContextualMenuSelectMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('contextual-menu-select'),
  selectionId: z.string(),
})
export type ContextualMenuSelectMessageEnvelope = z.infer<typeof ContextualMenuSelectMessageEnvelope>

/** `type: contextual-menu-request` received from the user: the wallet asked for the current menu. */
export const ContextualMenuRequestMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('contextual-menu-request'),
})
export type ContextualMenuRequestMessageEnvelope = z.infer<typeof ContextualMenuRequestMessageEnvelope>
