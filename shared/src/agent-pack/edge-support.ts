/**
 * What the edge does not act on yet. The schema accepts every field of the spec; a pack that sets
 * one of these paths (in the file or through an override) gets one warning saying it is ignored,
 * so a valid pack never misleads. Shrink this list as features land.
 */

/** Manifest paths (sections or fields) that are valid but not acted on by the edge yet. */
export const NOT_ACTED_ON_AT_THE_EDGE: readonly string[] = [
  'llm.reasoningEffort',
  'rag',
  'memory.redisUrl',
  'imageGeneration',
  // The requireAuth gates act (flows/authentication); transcription and description do not yet.
  'speechToText.provider',
  'vision.provider',
]
