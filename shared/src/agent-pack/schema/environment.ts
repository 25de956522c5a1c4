/**
 * Settings that the spec reads from the environment only, never from the manifest: the object
 * store (spec "imageGeneration", "Object store settings"). Secrets such as COMPAT_API_KEY are
 * added to the resolved configuration by the resolver (see `AgentPackConfig`).
 */
import { DEFAULT_OBJSTORE_BUCKET, DEFAULT_OBJSTORE_PORT, DEFAULT_OBJSTORE_USE_SSL } from '../defaults.ts'
import { booleanValue, numberValue, section, textValue, urlValue } from '../values.ts'

/**
 * `objectStore`: an S3-compatible store; image generation needs `endpoint`. The spec's built-in
 * access and secret keys are deliberately absent: without OBJSTORE_ACCESS_KEY and
 * OBJSTORE_SECRET_KEY requests are unsigned.
 */
export const ObjectStoreSettings = section({
  endpoint: textValue().optional().describe('Host name (OBJSTORE_ENDPOINT). Required to enable image generation.'),
  port: numberValue({ min: 1, max: 65535, integer: true }).default(DEFAULT_OBJSTORE_PORT),
  accessKey: textValue().optional(),
  secretKey: textValue().optional(),
  useSsl: booleanValue().default(DEFAULT_OBJSTORE_USE_SSL),
  publicUrl: urlValue().optional().describe('Public base URL of pre-signed URLs; derived from endpoint and port when absent.'),
  bucket: textValue().default(DEFAULT_OBJSTORE_BUCKET),
})

/** Everything resolved from the environment only, validated like the manifest. */
export const EnvironmentSettings = section({
  llm: section({ apiKey: textValue().optional() }).prefault({}),
  objectStore: ObjectStoreSettings.prefault({}),
})
