/**
 * `invitation`: forwards an out-of-band invitation to the user on an existing connection (spec
 * "Message": `url`), for example a presentation request's `url` or another service's invitation.
 * The invitation message itself travels, so the user's wallet handles it as if scanned.
 */
import { z } from 'zod'
import { SendMessageBase } from './common.ts'

export const InvitationMessageBody = SendMessageBase.extend({
  type: z.literal('invitation'),
  url: z.url(),
})
export type InvitationMessageBody = z.infer<typeof InvitationMessageBody>
