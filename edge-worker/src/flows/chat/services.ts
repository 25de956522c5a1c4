/** What the conversation lends the flows that talk with the model. */
import type { ChatModel } from '../../llm/types.ts'
import type { McpClients } from '../../mcp/clients.ts'
import type { GuardedFetch } from '../../net/outbound.ts'
import type { Tool } from '../../tools/types.ts'
import type { HistoryTurn } from '../../turn/index.ts'

export interface ChatServices {
  /** The configured model; undefined when none is (then only free-text answers say so). */
  model?: ChatModel
  /** Every configured tool (the turn filters them per user). */
  tools: readonly Tool[]
  /** The MCP servers (mcp/): their tools join `tools` per turn; absent when the Worker has none wired (unit tests). */
  mcp?: McpClients
  /** `fetch` through the Worker's outbound guard. */
  fetch: GuardedFetch
  /** The memory window before the event being handled (`memory.window` turns, oldest first). */
  history(): HistoryTurn[]
}
