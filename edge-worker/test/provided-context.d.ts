/** Values the workers project's global setup (Node) hands to its config and tests (`inject`). */
import 'vitest'
import type { AnoncredsFixture } from '../../shared/test/anoncreds/support/fixture.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL (`.../v1`) of the scripted OpenAI-compatible server. */
    llmBaseUrl: string
    /** GET answers the JSON array of request bodies the scripted server received. */
    llmRequestsUrl: string
    /** Origin of the HTTP tool `lookup` (`GET /?q=` answers `found <q>`). */
    toolBaseUrl: string
    /** The Worker bundled by `wrangler deploy --dry-run`, for the auxiliary workers. */
    workerBundlePath: string
    /** A credential issued in Node with Parley's AnonCreds engine (JSON of its objects). */
    anoncredsFixture: AnoncredsFixture
  }
}
