/**
 * The HTTP error body every server of agent-node answers with (the admin API and its event stream
 * upgrade alike). Every 4xx/5xx answer is JSON:
 *
 * ```json
 * { "error": "validation_error", "message": "content: Too small: expected string to have >=1 characters",
 *   "issues": [{ "field": "content", "message": "Too small: expected string to have >=1 characters" }] }
 * ```
 *
 * `error` is a stable code (validation_error, malformed_json, not_found, conflict, internal_error,
 * …), `message` is for people, `issues` (validation only) names each offending field by its path.
 */
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { z } from 'zod'

export const ErrorBody = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
})
export type ErrorBody = z.infer<typeof ErrorBody>

/** Answers an HTTP upgrade request on `socket` with a plain HTTP error (`status`, `body` as JSON) and closes it. */
export function refuseUpgrade(socket: Duplex, status: number, body: ErrorBody): void {
  const json = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n${json}`,
  )
}
