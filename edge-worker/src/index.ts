/**
 * Entry of the Parley edge Worker (wrangler.toml `main`): the HTTP router and the Durable Object
 * classes the bindings name.
 */
import type { Env } from './env.ts'
import { app } from './router/index.ts'

export { Approvals } from './approvals/index.ts'
export { Conversation } from './conversation/index.ts'
export { Directory } from './directory/index.ts'
export { McpServerHub } from './mcp-hub/index.ts'
export { TunnelGateway } from './tunnel-gateway/index.ts'

export default { fetch: app.fetch } satisfies ExportedHandler<Env>
