/**
 * Reads the attributes of a credential type from a JSON Schema Credential (W3C VC JSON Schema,
 * `type: JsonSchemaCredential`), as `/vt/issue-credential` receives it by URL: the credential's
 * `credentialSubject.jsonSchema` holds the JSON Schema inline or as `$ref` to an http(s) URL, and
 * the schema's `properties.credentialSubject.properties` (or, for a bare subject schema, its
 * `properties`) name the attributes. Both documents are fetched through the outbound guard
 * (the URLs come from the controller), with a timeout and a size cap. `vpr:` references (a
 * Verana trust registry) are not resolvable here and are refused.
 */
import { z } from 'zod'
import { InvalidInputError } from '../errors/index.ts'
import { readBoundedText } from '../http/bounded-body.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'

/** Time allowed for each document fetch, in milliseconds. */
export const SCHEMA_FETCH_TIMEOUT_MS = 10_000
/** Largest document accepted, in bytes (counted while it streams in). */
export const SCHEMA_MAX_BYTES = 256 * 1024

/** The JSON Schema Credential or its schema could not be used (invalid input); `field` names the request field. */
export class JsonSchemaCredentialError extends InvalidInputError {
  readonly field = 'jsonSchemaCredential'
  constructor(message: string) {
    super(message, [{ field: 'jsonSchemaCredential', message }])
  }
}

const Properties = z.record(z.string(), z.unknown())
const JsonSchema = z.object({
  title: z.string().optional(),
  properties: z.object({ credentialSubject: z.object({ properties: Properties }).optional() }).catchall(z.unknown()),
})
const JsonSchemaCredential = z.object({
  type: z.array(z.string()).refine((types) => types.includes('JsonSchemaCredential'), 'type must include JsonSchemaCredential'),
  credentialSubject: z.object({ jsonSchema: z.union([z.object({ $ref: z.string() }), JsonSchema]) }),
})

/** What a JSON Schema Credential defines: a title (when the schema has one) and the attribute names. */
export interface SchemaAttributes {
  title?: string
  attributes: string[]
}

/**
 * Fetches `url` and returns the attributes its schema defines.
 * @throws UnsafeUrlError when a URL may not be called; JsonSchemaCredentialError when a document
 *   cannot be fetched or is not what it should be.
 */
export async function readJsonSchemaCredential(guard: OutboundGuard, url: string): Promise<SchemaAttributes> {
  const credential = parse(JsonSchemaCredential, await fetchJson(guard, url), 'the JSON Schema Credential')
  const embedded = credential.credentialSubject.jsonSchema
  let schema: z.infer<typeof JsonSchema>
  if ('$ref' in embedded && typeof embedded.$ref === 'string') {
    if (!/^https?:\/\//.test(embedded.$ref))
      throw new JsonSchemaCredentialError(`cannot resolve the schema reference '${embedded.$ref}' (only http(s) URLs)`)
    schema = parse(JsonSchema, await fetchJson(guard, embedded.$ref), 'the JSON Schema')
  } else {
    schema = embedded as z.infer<typeof JsonSchema>
  }
  const properties = schema.properties.credentialSubject?.properties ?? schema.properties
  const attributes = Object.keys(properties)
  if (attributes.length === 0) throw new JsonSchemaCredentialError('the JSON Schema defines no attributes')
  return { title: schema.title, attributes }
}

async function fetchJson(guard: OutboundGuard, url: string): Promise<unknown> {
  await guard.check(url)
  let text: string | undefined
  try {
    const response = await guard.fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(SCHEMA_FETCH_TIMEOUT_MS),
    })
    if (!response.ok) throw new JsonSchemaCredentialError(`${url} answered ${response.status}`)
    text = await readBoundedText(response, SCHEMA_MAX_BYTES)
  } catch (error) {
    if (error instanceof JsonSchemaCredentialError) throw error
    throw new JsonSchemaCredentialError(`could not fetch ${url}: ${(error as Error).message}`)
  }
  if (text === undefined) throw new JsonSchemaCredentialError(`${url} is larger than ${SCHEMA_MAX_BYTES} bytes`)
  try {
    return JSON.parse(text)
  } catch {
    throw new JsonSchemaCredentialError(`${url} is not JSON`)
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value)
  if (!result.success)
    throw new JsonSchemaCredentialError(
      `${what} is not valid: ${result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    )
  return result.data
}
