/**
 * `invitation`: forwards an out-of-band invitation to the user on an existing connection (spec
 * "Message": `url`), for example a presentation request's `url` or another service's invitation.
 * The invitation message itself travels, so the user's wallet handles it as if scanned.
 */
import { z } from 'zod'
import { HttpUrl } from '../url.ts'
import { SendMessageBase } from './common.ts'

export const InvitationMessageBody = SendMessageBase.extend({
  type: z.literal('invitation'),
  /** The invitation's http(s) URL; agent-node fetches it when it holds no `oob` parameter. */
  url: HttpUrl,
})
export type InvitationMessageBody = z.infer<typeof InvitationMessageBody>
