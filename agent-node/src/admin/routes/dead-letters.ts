/**
 * Dead letters of event delivery (beyond the spec): events a subscriber refused (4xx) or that
 * failed every attempt. List them, read one, replay one or many. A replayed event is delivered
 * again, with its original id and seq, before that connection's next event.
 *
 * - `GET /v1/dead-letters?status=&subscriber=&connectionId=&before=&limit=&cursor=`: a page; while
 *   more follow, the next one's URL is in a `Link` header (`admin/paging.ts`)
 * - `GET /v1/dead-letters/{id}`
 * - `POST /v1/dead-letters/{id}/replay`
 * - `POST /v1/dead-letters/replay` with `{ ids }` or a filter `{ subscriber?, connectionId? }`, not both
 *
 * The work is in `dead-letters/DeadLetters.ts`.
 */
import { z } from '@hono/zod-openapi'
import { AgentEvent } from '@parley/shared'
import type { DeadLetters, DeadLetterWithEvent, ReplayOutcome } from '../../dead-letters/DeadLetters.ts'
import { adminRouter, jsonRoute } from '../openapi.ts'
import { linkNextPage, PAGE_PARAMS, pagedListResponse } from '../paging.ts'

const DeadLetterStatus = z.enum(['dead', 'replaying', 'replayed'])

export const DeadLetterBody = z
  .object({
    id: z.uuid(),
    subscriber: z.string().describe('Subscriber name: `webhook:events-base-url` for EVENTS_BASE_URL, `tunnel`, or a subscription'),
    eventId: z.uuid().describe('The event id (`webhook-id`)'),
    connectionId: z.string(),
    seq: z.number().int().describe("The event's sequence number in its connection"),
    topic: z.string(),
    reason: z.enum(['rejected', 'exhausted']).describe('rejected: the receiver answered 4xx; exhausted: every attempt failed'),
    status: DeadLetterStatus.describe('dead; replaying (a replay is owed); replayed (acknowledged on replay)'),
    attempts: z.number().int(),
    lastError: z.string(),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
    event: AgentEvent.nullable().describe('The event body as it was posted'),
  })
  .openapi('DeadLetter')
type DeadLetterBody = z.infer<typeof DeadLetterBody>

const ListQuery = z.strictObject({
  status: DeadLetterStatus.optional(),
  subscriber: z.string().min(1).max(300).optional(),
  connectionId: z.string().min(1).max(300).optional(),
  before: z.iso
    .datetime()
    .optional()
    .describe(
      "Only dead letters created before this time (ISO 8601). Dead letters of the same millisecond may repeat or be skipped across such pages; the `Link` header's cursor pages exactly",
    ),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: PAGE_PARAMS.cursor,
})

const IdParam = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) })

const ReplayManyBody = z
  .strictObject({
    ids: z.array(z.uuid()).min(1).max(1000).optional(),
    subscriber: z.string().min(1).max(300).optional(),
    connectionId: z.string().min(1).max(300).optional(),
  })
  .superRefine((body, context) => {
    const filters = (['subscriber', 'connectionId'] as const).filter((field) => body[field] !== undefined)
    if (body.ids === undefined && filters.length === 0)
      context.addIssue({ code: 'custom', path: [], message: 'give `ids`, or a filter: `subscriber` and/or `connectionId`' })
    if (body.ids !== undefined)
      for (const field of filters)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: 'replays `ids` or those the filter matches, not both: drop `ids` or the filter',
        })
  })

const invalid = 'Invalid request; `issues` names the fields'

const listDeadLetters = jsonRoute({
  method: 'get',
  path: '/v1/dead-letters',
  tags: ['events'],
  summary: 'List dead letters, newest first',
  query: ListQuery,
  responses: {
    200: pagedListResponse(z.object({ deadLetters: z.array(DeadLetterBody) }), 'A page of dead letters (`limit`, 100 by default)'),
    400: invalid,
  },
})

const getDeadLetter = jsonRoute({
  method: 'get',
  path: '/v1/dead-letters/{id}',
  tags: ['events'],
  summary: 'Get one dead letter',
  params: IdParam,
  responses: { 200: [DeadLetterBody, 'The dead letter'], 400: invalid, 404: 'No such dead letter' },
})

const replayOne = jsonRoute({
  method: 'post',
  path: '/v1/dead-letters/{id}/replay',
  tags: ['events'],
  summary: 'Replay one dead letter',
  description:
    "Delivers the event again to its subscriber, before that connection's next event. 202: accepted; the status becomes `replayed` once acknowledged, or `dead` again if it fails.",
  params: IdParam,
  responses: { 202: [DeadLetterBody, 'Replay queued'], 400: invalid, 404: 'No such dead letter' },
})

const replayMany = jsonRoute({
  method: 'post',
  path: '/v1/dead-letters/replay',
  tags: ['events'],
  summary: 'Replay dead letters by id or by filter',
  description:
    'With `ids`, replays those (unknown ids are listed in `notFound`); with a filter, every dead letter in status `dead` that matches. `ids` with a filter is a 400 naming the filter field.',
  body: ReplayManyBody,
  responses: {
    202: [z.object({ replaying: z.array(DeadLetterBody), notFound: z.array(z.uuid()) }), 'Replays queued'],
    400: invalid,
  },
})

const toBody = (letter: DeadLetterWithEvent): DeadLetterBody => ({
  ...letter,
  createdAt: new Date(letter.createdAt).toISOString(),
  updatedAt: new Date(letter.updatedAt).toISOString(),
})
const outcomeBody = ({ replaying, notFound }: ReplayOutcome) => ({ replaying: replaying.map(toBody), notFound })

/** The `/v1/dead-letters` sub-app over `deps.deadLetters` (`dead-letters/DeadLetters.ts`). */
export function deadLetterRoutes(deps: { deadLetters: Pick<DeadLetters, 'list' | 'get' | 'replayOne' | 'replay' | 'replayMatching'> }) {
  const { deadLetters } = deps
  return adminRouter()
    .openapi(listDeadLetters, async (c) => {
      const { before, cursor, ...query } = c.req.valid('query')
      const page = await deadLetters.list({ ...query, before: before === undefined ? undefined : Date.parse(before), after: cursor })
      linkNextPage(c, page.next)
      return c.json({ deadLetters: page.records.map(toBody) }, 200)
    })
    .openapi(getDeadLetter, async (c) => c.json(toBody(await deadLetters.get(c.req.valid('param').id)), 200))
    .openapi(replayOne, async (c) => c.json(toBody(await deadLetters.replayOne(c.req.valid('param').id)), 202))
    .openapi(replayMany, async (c) => {
      const { ids, ...filter } = c.req.valid('json')
      return c.json(outcomeBody(ids ? await deadLetters.replay(ids) : await deadLetters.replayMatching(filter)), 202)
    })
}
