/** Types of `env` and `exports` (cloudflare:workers) inside the workers tests. */
import type { Env as WorkerEnv } from '../src/env.ts'

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** The bundled Worker without a model configured. */
      WITHOUT_LLM: Fetcher
      /** The bundled Worker without TUNNEL_SECRET or a model. */
      UNCONFIGURED: Fetcher
      /** The bundled Worker with AUTH_REQUIRED=true and a model. */
      AUTH_REQUIRED_WORKER: Fetcher
    }
    interface GlobalProps {
      mainModule: typeof import('../src/index.ts')
      durableNamespaces: 'TunnelGateway' | 'Conversation' | 'Directory' | 'Approvals'
    }
  }
}
