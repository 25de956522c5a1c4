/**
 * Dead letters of event delivery as the admin API serves them (`/v1/dead-letters`): each with the
 * event body it failed to deliver, read one by one or by filter, and replayed one by one, by ids
 * or by filter. A replayed event is delivered again, with its original id and seq, before that
 * connection's next event (`DeliveryEngine.replay`).
 */
import type { AgentEvent } from '@parley/shared'
import { cutPage, type Page, readLimit } from '../database/pages.ts'
import { found } from '../errors/index.ts'
import type { DeadLetter, DeadLetterQuery, OutboxStore } from '../events/outbox/store.ts'

/** A dead letter and the event body as it was posted (null once the event is gone from the outbox). */
export type DeadLetterWithEvent = DeadLetter & { event: AgentEvent | null }

/** What a replay by ids or by filter queued, and the ids that name no dead letter. */
export interface ReplayOutcome {
  replaying: DeadLetterWithEvent[]
  notFound: string[]
}

/** Most dead letters one filtered replay takes. */
export const MAX_FILTERED_REPLAY = 1000

/** The outbox reads and the engine's replay this service uses. */
export interface DeadLetterSources {
  outbox: Pick<OutboxStore, 'listDeadLetters' | 'deadLetterById' | 'event'>
  delivery: { replay(id: string): Promise<DeadLetter | undefined> }
}

/** The admin API's dead-letter reads and replays, over the outbox and the delivery engine. */
export class DeadLetters {
  constructor(private readonly sources: DeadLetterSources) {}

  /** A page of at most `query.limit` dead letters matching `query`, newest first, and where the next page starts. */
  async list(query: DeadLetterQuery): Promise<Page<DeadLetterWithEvent>> {
    const rows = await this.sources.outbox.listDeadLetters({ ...query, limit: readLimit(query.limit) })
    const { records, next } = cutPage(rows, query.limit, ({ createdAt, id }) => ({ createdAt, id }))
    return { records: await Promise.all(records.map((letter) => this.withEvent(letter))), next }
  }

  /**
   * Dead letter `id`.
   * @throws NotFoundError when there is none.
   */
  async get(id: string): Promise<DeadLetterWithEvent> {
    return this.withEvent(found(await this.sources.outbox.deadLetterById(id), `dead letter '${id}' not found`))
  }

  /**
   * Replays dead letter `id`.
   * @throws NotFoundError when there is none.
   */
  async replayOne(id: string): Promise<DeadLetterWithEvent> {
    return this.withEvent(found(await this.sources.delivery.replay(id), `dead letter '${id}' not found`))
  }

  /** Replays the dead letters `ids`, in order; unknown ids are listed in `notFound`. */
  async replay(ids: readonly string[]): Promise<ReplayOutcome> {
    const outcome: ReplayOutcome = { replaying: [], notFound: [] }
    for (const id of ids) {
      const letter = await this.sources.delivery.replay(id)
      if (letter) outcome.replaying.push(await this.withEvent(letter))
      else outcome.notFound.push(id)
    }
    return outcome
  }

  /** Replays every dead letter in status `dead` matching `filter` (at most `MAX_FILTERED_REPLAY`). */
  async replayMatching(filter: { subscriber?: string; connectionId?: string }): Promise<ReplayOutcome> {
    const letters = await this.sources.outbox.listDeadLetters({ ...filter, status: 'dead', limit: MAX_FILTERED_REPLAY })
    return this.replay(letters.map((letter) => letter.id))
  }

  private async withEvent(letter: DeadLetter): Promise<DeadLetterWithEvent> {
    return { ...letter, event: (await this.sources.outbox.event(letter.eventId))?.event ?? null }
  }
}
