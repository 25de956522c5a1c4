/**
 * `invitation`: forwards an out-of-band invitation to the user on an existing connection (spec
 * "Message": `url`), for example a presentation request's `url` or another service's invitation.
 * The invitation message itself travels, so the user's wallet handles it as if scanned. Without
 * `url` (vs-agent's form) the agent makes the invitation: a new one of its own (`label`,
 * `imageUrl`), or one to the public DID `did`.
 */
import { z } from 'zod'
import { HttpUrl, urlField } from '../url.ts'
import { boundedName, SendMessageBase } from './common.ts'

export const InvitationMessageBody = SendMessageBase.extend({
  type: z.literal('invitation'),
  /** An existing invitation to forward. Without it, the agent makes one (vs-agent's sub-invitation). */
  url: HttpUrl.max(8_192).optional(),
  /** Label and image of the invitation the agent makes (not with `url`). */
  label: boundedName(256).optional(),
  imageUrl: urlField(/^(https?|data)$/, 'http(s):// or data:')
    .max(8_192)
    .optional(),
  /** A public DID to invite the user to (an implicit invitation naming it; not with `url`). */
  did: z
    .string()
    .max(512)
    .regex(/^did:[a-z0-9]+:\S+$/, 'a DID')
    .optional(),
}).superRefine((body, context) => {
  if (body.url === undefined) return
  for (const field of ['label', 'imageUrl', 'did'] as const) {
    if (body[field] !== undefined)
      context.addIssue({ code: 'custom', path: [field], message: 'not with url: the forwarded invitation has its own' })
  }
})
export type InvitationMessageBody = z.infer<typeof InvitationMessageBody>
