/**
 * The JSON Schema of the manifest, generated from the zod schema (`z.toJSONSchema`), for editors
 * to validate and complete packs (`agent-packs/agent-pack.schema.json`, written by
 * `npm run pack -- schema`). It describes what a pack author may write: strings where numbers
 * and booleans are read from strings, vendor spellings, and the vendor keys of `KEY_ALIASES`.
 */
import { z } from 'zod'
import { KEY_ALIASES } from './aliases.ts'
import { AgentPackManifest, JSON_TEXT_FIELDS } from './schema/index.ts'

type JsonSchema = z.core.JSONSchema.BaseSchema

/** Where the committed schema lives, relative to the repository root. */
export const AGENT_PACK_SCHEMA_FILE = 'agent-packs/agent-pack.schema.json'

/** The manifest's JSON Schema (draft-07, which YAML and JSON editors support widely). */
export function agentPackJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(AgentPackManifest, {
    io: 'input',
    target: 'draft-07',
    unrepresentable: 'any',
    // Defaults of fields read through a pipe (numbers from strings, aliases) are otherwise lost.
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def
      if (def.type === 'default' && jsonSchema.default === undefined)
        jsonSchema.default = (def as z.core.$ZodDefaultDef).defaultValue as never
    },
  })
  schema.title = 'Parley agent pack'
  schema.description = 'The manifest of a conversational agent (docs/agent-pack.md).'
  for (const path of JSON_TEXT_FIELDS) {
    const properties = propertiesAt(schema, path.slice(0, -1))
    const field = path[path.length - 1] as string
    const value = properties?.[field]
    if (properties && typeof value === 'object') {
      const { description, default: fallback, ...form } = value
      properties[field] = {
        description,
        default: fallback,
        anyOf: [form, { type: 'string', description: 'A JSON string holding the value.' }],
      }
    }
  }
  for (const { parent, from, to } of KEY_ALIASES) {
    const properties = propertiesAt(schema, parent)
    const target = properties?.[to]
    if (properties && target !== undefined) {
      properties[from] = { ...(typeof target === 'object' ? target : {}), description: `Alias of ${to}.`, deprecated: true }
    }
  }
  return schema
}

/** The `properties` of the object schema at `path` (following `properties` only). */
function propertiesAt(schema: JsonSchema, path: readonly string[]): Record<string, z.core.JSONSchema._JSONSchema> | undefined {
  let node: JsonSchema | undefined = schema
  for (const key of path) {
    const next: z.core.JSONSchema._JSONSchema | undefined = node?.properties?.[key]
    node = typeof next === 'object' ? next : undefined
  }
  return node?.properties
}
