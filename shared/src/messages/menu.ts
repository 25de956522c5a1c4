/**
 * `menu-display` (controller to user) and `menu-select` (user to controller): a button menu in
 * the chat, carried by the question-answer 1.0 protocol (Aries RFC 0113): the prompt is the
 * question, each item's text a valid response, and the user's answer maps back to the item's id.
 * Field names follow 2060.io's vs-agent (`prompt`, `menuItems: [{ id, text }]`).
 */
import { z } from 'zod'
import { boundedName, MessageEnvelopeBase, SendMessageBase, uniqueBy } from './common.ts'

/** One button: `id` is what `menu-select` reports back, `text` what the user sees. */
export const MenuItem = z.strictObject({
  id: boundedName(256),
  text: z.string().min(1).max(1024),
})
export type MenuItem = z.infer<typeof MenuItem>

/** `type: menu-display` sent by the controller. Item ids and texts are unique (the answer carries the text). */
export const MenuDisplayMessageBody = SendMessageBase.extend({
  type: z.literal('menu-display'),
  prompt: z.string().min(1).max(4096),
  menuItems: z
    .array(MenuItem)
    .min(1)
    .max(64)
    .superRefine(uniqueBy('id', 'menu-select reports the id'))
    .superRefine(uniqueBy('text', 'the answer carries the text')),
})
export type MenuDisplayMessageBody = z.infer<typeof MenuDisplayMessageBody>

/**
 * `type: menu-select` received from the user: the chosen item's id. `threadId` is the id
 * `POST /v1/message` returned for the `menu-display` it answers.
 */
export const MenuSelectMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('menu-select'),
  menuItems: z.array(z.object({ id: z.string() })),
})
export type MenuSelectMessageEnvelope = z.infer<typeof MenuSelectMessageEnvelope>
