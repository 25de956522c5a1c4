/**
 * Response schemas of the admin API (spec "Resources and their fields"); request schemas are the
 * shared ones in `@parley/shared`, so the worker and agent-node validate the same bodies.
 */
import { z } from '@hono/zod-openapi'

export const ConnectionBody = z
  .object({
    id: z.uuid(),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
    did: z.string().optional().describe('Agent-side peer DID'),
    theirDid: z.string().optional().describe('Peer-side DID'),
    theirLabel: z.string().optional(),
    state: z
      .string()
      .describe(
        'DID Exchange state: invitation-sent, request-received, response-sent, completed, abandoned; terminated once either side hung up',
      ),
    role: z.string().describe('responder when the peer scanned our invitation'),
    threadId: z.string().optional(),
    outOfBandId: z.string().optional(),
  })
  .openapi('Connection')
export type ConnectionBody = z.infer<typeof ConnectionBody>

export const AgentInfoBody = z
  .object({
    publicDid: z.string().describe('The public DID (from AGENT_PUBLIC_DID; for did:webvh with its SCID), resolvable at the public URL'),
    endpoint: z.string().describe('The public interface base URL'),
    label: z.string(),
    name: z.string(),
    version: z.string(),
  })
  .openapi('AgentInfo')

export const InvitationBody = z
  .object({
    url: z.string().describe('Long URL-encoded out-of-band invitation; render it as a QR code'),
    outOfBandId: z.uuid(),
  })
  .openapi('Invitation')

export const ConnectionIdParam = z.object({
  connection_id: z.uuid().openapi({ param: { name: 'connection_id', in: 'path' } }),
})

/**
 * vs-agent's `didCommVersion` on invitation bodies: Parley speaks DIDComm v1 only, so `'v1'` is
 * accepted (a no-op) and `'v2'` refused rather than ignored.
 */
export const DidCommVersionField = z
  .literal('v1', { error: "only 'v1' is supported (DIDComm v1 envelopes)" })
  .optional()
  .describe("vs-agent field; only 'v1'")
