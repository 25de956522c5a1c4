/** Constants shared by the workers test config (Node) and the tests (workerd). */

/** TUNNEL_SECRET of the test workers. */
export const TEST_TUNNEL_SECRET = 'test-tunnel-secret'

/** COMPAT_MODEL of the test worker. */
export const TEST_MODEL = 'scripted-model'

/** AGENT_MEMORY_WINDOW of the test worker: small, so a few messages exceed it. */
export const TEST_MEMORY_WINDOW = 3

/** A user text containing this makes the scripted model fail (HTTP 500). */
export const FAIL_MARKER = '[fail]'

/** A user text containing this makes the scripted model call the `lookup` tool. */
export const TOOL_MARKER = '[tool]'
