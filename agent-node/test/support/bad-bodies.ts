/**
 * Shared check of the message-type tests: each bad `POST /v1/message` body is a 400
 * `validation_error` whose issues name the offending field.
 */
import { expect } from 'vitest'

/** A bad body and the field its 400 must name. */
export type BadBody = [what: string, body: Record<string, unknown>, field: string]

/** POSTs each body (with `connectionId` added) and asserts the 400 names its field. */
export async function expectRejected(post: (body: unknown) => Promise<Response>, connectionId: string, cases: BadBody[]): Promise<void> {
  for (const [what, body, field] of cases) {
    const response = await post({ connectionId, ...body })
    const error = (await response.json()) as { error: string; issues?: Array<{ field: string; message: string }> }
    expect(response.status, what).toBe(400)
    expect(error.error, what).toBe('validation_error')
    expect(
      error.issues?.map((issue) => issue.field),
      what,
    ).toContain(field)
  }
}
