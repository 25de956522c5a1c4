/**
 * `profile`: the sender's public profile, both directions; 2060.io's user-profile 1.0 `profile`
 * message on the wire. Pictures travel as attachments; here they are URLs (http(s), or a data URL
 * for inline pictures). `null` clears a field. Field names follow 2060.io's service agent.
 */
import { z } from 'zod'
import { urlField } from '../url.ts'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

const PictureUrl = urlField(/^(https?|data)$/, 'http(s):// or data:')

const ProfileFields = {
  displayName: z.string().max(256).nullable().optional(),
  /** Profile picture. */
  displayImageUrl: PictureUrl.nullable().optional(),
  /** Small icon. */
  displayIconUrl: PictureUrl.nullable().optional(),
  description: z.string().max(4096).nullable().optional(),
  /** BCP 47 language tag, e.g. `en` or `es-AR`. */
  preferredLanguage: z
    .string()
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'a BCP 47 language tag such as en or es-AR')
    .nullable()
    .optional(),
}

/** `type: profile` sent by the controller: the agent's own profile as this user should see it. */
export const ProfileMessageBody = SendMessageBase.extend({ type: z.literal('profile'), ...ProfileFields })
export type ProfileMessageBody = z.infer<typeof ProfileMessageBody>

/** `type: profile` received from the user: the fields their wallet disclosed (absent = not sent). */
export const ProfileMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('profile'),
  displayName: z.string().nullable().optional(),
  displayImageUrl: z.string().nullable().optional(),
  displayIconUrl: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  preferredLanguage: z.string().nullable().optional(),
})
export type ProfileMessageEnvelope = z.infer<typeof ProfileMessageEnvelope>
