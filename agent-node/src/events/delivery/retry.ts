/**
 * Retry schedule of failed deliveries: exponential backoff with full jitter (AWS Architecture
 * Blog, "Exponential Backoff And Jitter"): the n-th retry waits a random time in
 * `[0, min(maxDelayMs, baseDelayMs * 2^(n-1))]`. The engine stores the resulting time in the
 * database, so the schedule survives a restart.
 */
import { z } from 'zod'

export const RetryPolicy = z.object({
  /** Attempts in all (the first included) before an event is dead-lettered; `Infinity` never gives up. */
  maxAttempts: z.number().int().min(1).or(z.literal(Number.POSITIVE_INFINITY)),
  /** Ceiling of the first retry's delay, in milliseconds. */
  baseDelayMs: z.number().int().min(0),
  /** Largest delay between two attempts, in milliseconds. */
  maxDelayMs: z.number().int().min(0),
})
export type RetryPolicy = z.infer<typeof RetryPolicy>

/**
 * Delay before the next attempt once `attempts` attempts have failed (`attempts` >= 1), in
 * milliseconds. `random` returns a number in [0, 1) (injectable for tests).
 */
export function retryDelay(policy: RetryPolicy, attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempts - 1, 52))
  return Math.floor(random() * ceiling)
}
