/**
 * Spec section `memory`: how much history the model sees and where it is kept.
 */
import { MEMORY_BACKEND_ALIASES } from '../aliases.ts'
import { DEFAULT_MEMORY_BACKEND, DEFAULT_MEMORY_WINDOW, DEFAULT_REDIS_URL, MEMORY_BACKENDS } from '../defaults.ts'
import { choiceValue, numberValue, section, textValue } from '../values.ts'

/** `memory`. */
export const MemorySection = section({
  backend: choiceValue(MEMORY_BACKENDS, MEMORY_BACKEND_ALIASES)
    .default(DEFAULT_MEMORY_BACKEND)
    .describe('memory (in-process) or kvstore (persistent).'),
  window: numberValue({ min: 1, integer: true }).default(DEFAULT_MEMORY_WINDOW).describe('Session memory window size, in turns.'),
  redisUrl: textValue().default(DEFAULT_REDIS_URL).describe('URL of the persistent store (not needed at the edge).'),
})
