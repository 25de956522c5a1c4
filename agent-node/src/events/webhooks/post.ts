/**
 * One JSON POST whose answer decides a delivery's fate (spec "Delivery rules"): 2xx acknowledges;
 * 4xx rejects (not retried); 5xx, other statuses, timeouts and network errors are retried. Shared
 * by the webhook subscriber and the presentation-request callbacks.
 */
import { redactedUrl } from '@parley/shared'
import type { DeliveryOutcome } from '../delivery/subscriber.ts'

/** How to POST: `fetch` (an outbound-guarded one for user-supplied URLs), the time allowed in milliseconds, an abort signal. */
export interface PostOptions {
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<Response>
  timeoutMs: number
  signal?: AbortSignal
}

/**
 * POSTs `body` (already JSON) to `url` with `headers`.
 * @returns the outcome; never throws (failures are `retry` with a reason naming the URL, its
 *   credentials redacted).
 */
export async function postForDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<DeliveryOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  try {
    const response = await options.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    })
    await response.body?.cancel()
    if (response.ok) return { result: 'acknowledged' }
    const error = `${redactedUrl(url)} answered HTTP ${response.status}`
    return response.status >= 400 && response.status < 500 ? { result: 'rejected', error } : { result: 'retry', error }
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : describe(error)
    return { result: 'retry', error: `${redactedUrl(url)}: ${reason}` }
  }
}

/** A network error's most specific message (undici puts the system error in `cause`). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}
