/**
 * `npm run bench`: runs every benchmark entry in order and prints its figures.
 * `npm run bench -- <name>` runs one entry.
 */
import { runAnoncreds } from './anoncreds.ts'
import { runAuthentication } from './authentication.ts'
import { runChatRoundTrip } from './chat-round-trip.ts'
import { runChatTimeline } from './chat-timeline.ts'
import { runConnectionList } from './connection-list.ts'
import { runConversationMemory } from './conversation-memory.ts'
import { runDirectory } from './directory.ts'
import { runStorage } from './storage.ts'
import { runEvents } from './events.ts'
import { runEventSubscriptions } from './event-subscriptions.ts'
import { runPublicLimits } from './public-limits.ts'
import { runToolTurn } from './tool-turn.ts'
import { runInboundBurst } from './inbound-burst.ts'
import { runMcpStdio } from './mcp-stdio.ts'
import { runOpenSockets } from './open-sockets.ts'
import { runMcp } from './mcp.ts'
import { runStartup } from './startup.ts'

const ENTRIES: Record<string, () => Promise<void>> = {
  'chat-round-trip': runChatRoundTrip,
  'chat-timeline': runChatTimeline,
  'conversation-memory': runConversationMemory,
  directory: runDirectory,
  anoncreds: runAnoncreds,
  storage: runStorage,
  events: runEvents,
  'event-subscriptions': runEventSubscriptions,
  'public-limits': runPublicLimits,
  'tool-turn': runToolTurn,
  'inbound-burst': runInboundBurst,
  'open-sockets': runOpenSockets,
  authentication: runAuthentication,
  'mcp-stdio': runMcpStdio,
  mcp: runMcp,
  startup: runStartup,
  'connection-list': runConnectionList,
}

const only = process.argv[2]
if (only && !ENTRIES[only]) {
  console.error(`unknown benchmark '${only}'; entries: ${Object.keys(ENTRIES).join(', ')}`)
  process.exit(2)
}
for (const [name, run] of Object.entries(ENTRIES)) {
  if (only && name !== only) continue
  console.log(`\n== ${name}`)
  await run()
}
process.exit(0)
