/**
 * Dead letters of event delivery (beyond the spec): events a subscriber refused (4xx) or that
 * failed every attempt. List them, read one, replay one or many. A replayed event is delivered
 * again, with its original id and seq, before that connection's next event.
 *
 * - `GET /v1/dead-letters?status=&subscriber=&connectionId=&before=&limit=`
 * - `GET /v1/dead-letters/{id}`
 * - `POST /v1/dead-letters/{id}/replay`
 * - `POST /v1/dead-letters/replay` with `{ ids }` or a filter `{ subscriber?, connectionId? }`
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AgentEvent } from '@parley/shared'
import type { DeadLetter } from '../../events/outbox/store.ts'
import type { AdminDeps } from '../context.ts'
import { ErrorBody, errorResponse } from '../errors.ts'

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
  before: z.iso.datetime().optional().describe('Only dead letters created before this time (ISO 8601): the next page'),
  limit: z.coerce.number().int().min(1).max(500).default(100),
})

const IdParam = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) })

const ReplayManyBody = z
  .strictObject({
    ids: z.array(z.uuid()).min(1).max(1000).optional(),
    subscriber: z.string().min(1).max(300).optional(),
    connectionId: z.string().min(1).max(300).optional(),
  })
  .refine((b) => b.ids !== undefined || b.subscriber !== undefined || b.connectionId !== undefined, {
    message: 'give `ids`, or a filter: `subscriber` and/or `connectionId`',
  })

const errors = {
  400: { description: 'Invalid request; `issues` names the fields', content: { 'application/json': { schema: ErrorBody } } },
}

const listDeadLetters = createRoute({
  method: 'get',
  path: '/v1/dead-letters',
  tags: ['events'],
  summary: 'List dead letters, newest first',
  request: { query: ListQuery },
  responses: {
    200: {
      description: 'A page of dead letters',
      content: { 'application/json': { schema: z.object({ deadLetters: z.array(DeadLetterBody) }) } },
    },
    ...errors,
  },
})

const getDeadLetter = createRoute({
  method: 'get',
  path: '/v1/dead-letters/{id}',
  tags: ['events'],
  summary: 'Get one dead letter',
  request: { params: IdParam },
  responses: {
    200: { description: 'The dead letter', content: { 'application/json': { schema: DeadLetterBody } } },
    ...errors,
    404: { description: 'No such dead letter', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const replayOne = createRoute({
  method: 'post',
  path: '/v1/dead-letters/{id}/replay',
  tags: ['events'],
  summary: 'Replay one dead letter',
  description:
    "Delivers the event again to its subscriber, before that connection's next event. 202: accepted; the status becomes `replayed` once acknowledged, or `dead` again if it fails.",
  request: { params: IdParam },
  responses: {
    202: { description: 'Replay queued', content: { 'application/json': { schema: DeadLetterBody } } },
    ...errors,
    404: { description: 'No such dead letter', content: { 'application/json': { schema: ErrorBody } } },
  },
})

const replayMany = createRoute({
  method: 'post',
  path: '/v1/dead-letters/replay',
  tags: ['events'],
  summary: 'Replay dead letters by id or by filter',
  description:
    'With `ids`, replays those (unknown ids are listed in `notFound`); with a filter, every dead letter in status `dead` that matches.',
  request: { body: { required: true, content: { 'application/json': { schema: ReplayManyBody } } } },
  responses: {
    202: {
      description: 'Replays queued',
      content: { 'application/json': { schema: z.object({ replaying: z.array(DeadLetterBody), notFound: z.array(z.uuid()) }) } },
    },
    ...errors,
  },
})

/** Most dead letters one filtered replay takes. */
const MAX_FILTERED_REPLAY = 1000

export function deadLetterRoutes(deps: AdminDeps, app: OpenAPIHono) {
  const view = async (letter: DeadLetter): Promise<DeadLetterBody> => ({
    ...letter,
    createdAt: new Date(letter.createdAt).toISOString(),
    updatedAt: new Date(letter.updatedAt).toISOString(),
    event: (await deps.outbox.event(letter.eventId))?.event ?? null,
  })
  const replay = async (ids: readonly string[]) => {
    const replaying: DeadLetterBody[] = []
    const notFound: string[] = []
    for (const id of ids) {
      const letter = await deps.delivery.replay(id)
      if (letter) replaying.push(await view(letter))
      else notFound.push(id)
    }
    return { replaying, notFound }
  }

  return app
    .openapi(listDeadLetters, async (c) => {
      const { before, ...query } = c.req.valid('query')
      const letters = await deps.outbox.listDeadLetters({ ...query, before: before === undefined ? undefined : Date.parse(before) })
      return c.json({ deadLetters: await Promise.all(letters.map(view)) }, 200)
    })
    .openapi(getDeadLetter, async (c) => {
      const letter = await deps.outbox.deadLetterById(c.req.valid('param').id)
      if (!letter) return errorResponse(c, 404, 'not_found', `dead letter '${c.req.valid('param').id}' not found`)
      return c.json(await view(letter), 200)
    })
    .openapi(replayOne, async (c) => {
      const { id } = c.req.valid('param')
      const { replaying } = await replay([id])
      if (replaying.length === 0) return errorResponse(c, 404, 'not_found', `dead letter '${id}' not found`)
      return c.json(replaying[0]!, 202)
    })
    .openapi(replayMany, async (c) => {
      const body = c.req.valid('json')
      const ids =
        body.ids ??
        (
          await deps.outbox.listDeadLetters({
            status: 'dead',
            subscriber: body.subscriber,
            connectionId: body.connectionId,
            limit: MAX_FILTERED_REPLAY,
          })
        ).map((l) => l.id)
      return c.json(await replay(ids), 202)
    })
}
