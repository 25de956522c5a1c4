/**
 * The agent-pack manifest (spec "Resources and their fields") as one zod schema, one module per
 * section. Parsing a manifest with it checks every field (unknown keys included), turns vendor
 * spellings into the neutral names, coerces `number/string` and `boolean/string` values and
 * fills the built-in defaults, so its output is the resolved configuration minus the
 * environment-only settings (`AgentPackConfig`).
 */
import { z } from 'zod'
import { ObjectStoreSettings } from './environment.ts'
import { FlowsSection } from './flows.ts'
import { LanguageEntry, MetadataSection } from './identity.ts'
import { IntegrationsSection } from './integrations.ts'
import { LlmSection } from './llm.ts'
import { ImageGenerationSection, SpeechToTextSection, VisionSection } from './media.ts'
import { McpSection } from './mcp.ts'
import { MemorySection } from './memory.ts'
import { RagSection } from './rag.ts'
import { ToolsSection } from './tools.ts'

export * from './environment.ts'
export * from './flows.ts'
export * from './identity.ts'
export * from './integrations.ts'
export * from './llm.ts'
export * from './media.ts'
export * from './mcp.ts'
export * from './memory.ts'
export * from './rag.ts'
export * from './tools.ts'

/**
 * The whole manifest. Every top-level field is optional (spec rule 5); `rag` stays absent unless
 * configured (its presence turns retrieval on), every other section is filled with its defaults.
 */
export const AgentPackManifest = z.strictObject(
  {
    metadata: MetadataSection.prefault({}),
    languages: z
      .record(z.string(), LanguageEntry, { error: 'expected a mapping of language codes' })
      .default({})
      .describe('Texts per language code.'),
    llm: LlmSection.prefault({}),
    rag: RagSection.optional(),
    memory: MemorySection.prefault({}),
    flows: FlowsSection.prefault({}),
    tools: ToolsSection.prefault({}),
    mcp: McpSection.prefault({}),
    imageGeneration: ImageGenerationSection.prefault({}),
    speechToText: SpeechToTextSection.prefault({}),
    vision: VisionSection.prefault({}),
    integrations: IntegrationsSection.prefault({}),
  },
  { error: 'expected a mapping' },
)
export type AgentPackManifest = z.output<typeof AgentPackManifest>
/** What a pack author may write (strings for numbers, vendor spellings, ...). */
export type AgentPackManifestInput = z.input<typeof AgentPackManifest>

/** A media provider after resolution: its key read from the variable its `apiKeyEnv` names. */
type WithApiKey<T> = T & { apiKey?: string }

/**
 * The resolved configuration (spec "What the service does", rule 3): the manifest after
 * placeholders, environment overrides and defaults, plus the environment-only settings:
 * `llm.apiKey` (COMPAT_API_KEY), each media provider's `apiKey` (the variable its `apiKeyEnv`
 * names) and `objectStore` (OBJSTORE_*). Field names are the spec's. It holds secrets: never log
 * it whole (`maskSecrets`).
 */
export type AgentPackConfig = Omit<AgentPackManifest, 'llm' | 'imageGeneration' | 'speechToText' | 'vision'> & {
  llm: WithApiKey<AgentPackManifest['llm']>
  imageGeneration: { providers: WithApiKey<AgentPackManifest['imageGeneration']['providers'][number]>[] }
  speechToText: Omit<AgentPackManifest['speechToText'], 'provider'> & {
    provider?: WithApiKey<NonNullable<AgentPackManifest['speechToText']['provider']>>
  }
  vision: Omit<AgentPackManifest['vision'], 'provider'> & { provider?: WithApiKey<NonNullable<AgentPackManifest['vision']['provider']>> }
  objectStore: z.output<typeof ObjectStoreSettings>
}
