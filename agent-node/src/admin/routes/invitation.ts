/**
 * Connection invitations (spec "Endpoints"; the POST form and the QR code are vs-agent's):
 * - `GET /v1/invitation[?multiUse=false]`: a new invitation, by default multi-use and naming the
 *   agent's public DID (as vs-agent's: the connections it leads to carry the DID as
 *   `invitationDid`); `multiUse=false`: single-use, with an inline did:key service;
 * - `POST /v1/invitation` with `{ multiUse?, label?, imageUrl?, didCommVersion? }` (an empty or
 *   absent body is the multi-use public-DID invitation; `multiUse: false` the single-use one);
 * - `GET /v1/qr[?size&padding&level&fcolor&bcolor]`: a PNG QR code of the agent's public
 *   (multi-use, reused) invitation, for `<img>` embeds.
 */
import { z } from '@hono/zod-openapi'
import { boundedName } from '@parley/shared'
import type { ConnectionInvitations } from '../../didcomm/invitations.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { DidCommVersionField, InvitationBody } from '../schemas.ts'

const MultiUse = z
  .boolean()
  .optional()
  .describe(
    'true (default): multi-use, naming the public DID; any number of wallets may connect through it (each gets its own connection). false: single-use, inline did:key service',
  )

const InvitationQuery = z.strictObject({
  multiUse: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('true (default): multi-use, naming the public DID; false: single-use, inline did:key service'),
})

const InvitationCreate = z
  .strictObject({
    multiUse: MultiUse,
    label: boundedName(256).optional().describe('Label shown to the user instead of AGENT_LABEL'),
    imageUrl: z
      .url({ protocol: /^(https?|data)$/ })
      .max(8_192)
      .optional()
      .describe('Image shown instead of AGENT_INVITATION_IMAGE_URL'),
    didCommVersion: DidCommVersionField,
  })
  .openapi('InvitationCreate')

const QrQuery = z.strictObject({
  size: z.coerce.number().int().min(64).max(2_048).optional().describe('Width in pixels'),
  padding: z.coerce.number().int().min(0).max(20).optional().describe('Quiet zone, in modules'),
  level: z.enum(['L', 'M', 'Q', 'H']).optional().describe('Error correction level (default L)'),
  fcolor: z
    .string()
    .regex(/^[0-9a-fA-F]{6}$/, 'a colour as rrggbb')
    .optional()
    .describe('Dark colour, rrggbb'),
  bcolor: z
    .string()
    .regex(/^[0-9a-fA-F]{6}$/, 'a colour as rrggbb')
    .optional()
    .describe('Light colour, rrggbb'),
})

const invalid = 'Invalid query or body; `issues` names the fields'

const getInvitation = jsonRoute({
  method: 'get',
  path: '/v1/invitation',
  tags: ['connections'],
  summary: 'Create a connection invitation',
  query: InvitationQuery,
  responses: {
    200: [InvitationBody, 'An out-of-band invitation: multi-use naming the public DID, or single-use with multiUse=false'],
    400: invalid,
  },
})

const postInvitation = jsonRoute({
  method: 'post',
  path: '/v1/invitation',
  tags: ['connections'],
  summary: 'Create a connection invitation (vs-agent form)',
  body: InvitationCreate,
  bodyOptional: true,
  responses: {
    200: [InvitationBody, 'An out-of-band invitation: multi-use naming the public DID, or single-use with multiUse: false'],
    400: invalid,
  },
})

const getQr = jsonRoute({
  method: 'get',
  path: '/v1/qr',
  tags: ['connections'],
  summary: "PNG QR code of the agent's public invitation",
  description: 'The public invitation is multi-use and reused: asking for the QR code creates nothing.',
  query: QrQuery,
  responses: {
    200: { description: 'The QR code', content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) } } },
    400: invalid,
  },
})

/** The `/v1/invitation` and `/v1/qr` sub-app over `deps.invitations` (`didcomm/invitations.ts`). */
export function invitationRoutes(deps: { invitations: Pick<ConnectionInvitations, 'create' | 'publicQrCode'> }) {
  const { invitations } = deps
  return adminRouter()
    .openapi(getInvitation, async (c) => c.json(await invitations.create({ multiUse: c.req.valid('query').multiUse }), 200))
    .openapi(postInvitation, async (c) =>
      // The body is optional (vs-agent's clients may POST none): without a JSON body it is not validated and stands for {}.
      c.json(await invitations.create(c.req.valid('json') ?? {}), 200),
    )
    .openapi(getQr, async (c) => {
      const { size, padding, level, fcolor, bcolor } = c.req.valid('query')
      const png = await invitations.publicQrCode({ width: size, margin: padding, errorCorrectionLevel: level, dark: fcolor, light: bcolor })
      return c.body(new Uint8Array(png), 200, { 'content-type': 'image/png' })
    })
}
