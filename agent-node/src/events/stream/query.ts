/**
 * Query of the admin event stream `/v1/events`: `topics` (comma-separated), `connectionId` and
 * `from` (the `cursor` of the last event processed; absent: only events from now on).
 */
import { z } from 'zod'
import { EventFilter } from '../subscriptions/model.ts'

export const EventStreamQuery = z
  .object({
    topics: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((topic) => topic.trim())
          .filter(Boolean),
      )
      .pipe(EventFilter.shape.topics.unwrap())
      .optional()
      .describe('Comma-separated topics; every topic when absent'),
    connectionId: EventFilter.shape.connectionId,
    from: z
      .string()
      .regex(/^\d{1,15}$/, 'must be a cursor: a non-negative integer')
      .transform(Number)
      .optional()
      .describe(
        'Resume after this cursor (the `cursor` of the last event processed); 0 replays the whole outbox; absent: events from now on',
      ),
  })
  .strict()
export type EventStreamQuery = z.infer<typeof EventStreamQuery>
