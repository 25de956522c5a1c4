/**
 * Settings every vitest project shares (vitest.config.ts, edge-worker/vitest.config.ts).
 *
 * `expect.poll` waits for a condition that background work makes true; vitest's default of 1 s
 * was once too short in CI on 2 loaded cores (an outbox subscriber passing an event by). A poll
 * ends as soon as its condition holds, so a longer limit costs a passing test nothing.
 */
export const expectOptions = { poll: { timeout: 10_000 } }
