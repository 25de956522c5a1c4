/**
 * Spec sections `imageGeneration`, `speechToText` and `vision`: media providers. Each provider's
 * key is read from the variable named by `apiKeyEnv` (see `AgentPackConfig`).
 */
import type { z } from 'zod'
import { IMAGE_PROVIDER_ALIASES, STT_PROVIDER_ALIASES, VISION_PROVIDER_ALIASES } from '../aliases.ts'
import {
  DEFAULT_API_KEY_ENV,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_IMAGE_OUTPUT_FORMAT,
  DEFAULT_IMAGE_SIZE,
  DEFAULT_LLM_MODEL,
  DEFAULT_STT_MODEL,
  DEFAULT_VISION_DETAIL,
  DEFAULT_VISION_MAX_TOKENS,
  DEFAULT_VISION_PROMPT,
  IMAGE_BACKGROUNDS,
  IMAGE_OUTPUT_FORMATS,
  IMAGE_PROVIDER_TYPES,
  IMAGE_QUALITIES,
  STT_PROVIDER_TYPES,
  VISION_DETAILS,
  VISION_PROVIDER_TYPES,
} from '../defaults.ts'
import { ENV_NAME } from '../env.ts'
import { booleanValue, choiceValue, nonEmptyTextValue, numberValue, section, textValue, uniqueListOf, urlValue } from '../values.ts'

const apiKeyEnv = () =>
  textValue()
    .regex(ENV_NAME, { error: 'expected an environment variable name' })
    .default(DEFAULT_API_KEY_ENV)
    .describe('Name of the environment variable holding the key.')

/** A refinement: a provider of the self-hosted `type` must name its `baseUrl`. */
function baseUrlRequiredFor(type: string) {
  return (provider: { type: string; baseUrl?: string | undefined }, context: z.RefinementCtx) => {
    if (provider.type === type && provider.baseUrl === undefined) {
      context.addIssue({ code: 'custom', path: ['baseUrl'], input: undefined, message: `expected a URL (required for type ${type})` })
    }
  }
}

/** One `imageGeneration.providers` entry; `model` defaults by type. */
export const ImageProvider = section({
  name: nonEmptyTextValue().describe('Unique name, referenced by the model in tool calls.'),
  type: choiceValue(IMAGE_PROVIDER_TYPES, IMAGE_PROVIDER_ALIASES).describe('compat-image-legacy or compat-image-new.'),
  model: textValue().optional().describe('Model name; default depends on type.'),
  apiKeyEnv: apiKeyEnv(),
  defaultSize: textValue().default(DEFAULT_IMAGE_SIZE).describe('Default image size.'),
  quality: choiceValue(IMAGE_QUALITIES).optional().describe('compat-image-new only.'),
  outputFormat: choiceValue(IMAGE_OUTPUT_FORMATS).default(DEFAULT_IMAGE_OUTPUT_FORMAT).describe('compat-image-new only.'),
  background: choiceValue(IMAGE_BACKGROUNDS).optional().describe('compat-image-new only.'),
}).transform((provider) => ({ ...provider, model: provider.model ?? DEFAULT_IMAGE_MODELS[provider.type] }))

/** `imageGeneration`. */
export const ImageGenerationSection = section({
  providers: uniqueListOf(ImageProvider, 'image providers', 'name').default([]),
})

/** `speechToText.provider`; `baseUrl` is required for `stt-selfhosted`. */
export const SttProvider = section({
  name: textValue().optional().describe('Name, for logging.'),
  type: choiceValue(STT_PROVIDER_TYPES, STT_PROVIDER_ALIASES).describe('compat-stt (cloud) or stt-selfhosted.'),
  model: textValue().default(DEFAULT_STT_MODEL).describe('Transcription model.'),
  apiKeyEnv: apiKeyEnv(),
  baseUrl: urlValue().optional().describe('Required for stt-selfhosted.'),
  language: textValue().optional().describe('ISO 639-1 hint.'),
}).superRefine(baseUrlRequiredFor('stt-selfhosted'))

/** `speechToText`: without a provider, speech-to-text is disabled. */
export const SpeechToTextSection = section({
  requireAuth: booleanValue().default(false).describe('Reject voice notes from unauthenticated users.'),
  provider: SttProvider.optional(),
})

/** `vision.provider`; `baseUrl` is required for `compat-vision-selfhosted`. */
export const VisionProvider = section({
  name: textValue().optional().describe('Name, for logging.'),
  type: choiceValue(VISION_PROVIDER_TYPES, VISION_PROVIDER_ALIASES).describe('compat-vision or compat-vision-selfhosted.'),
  model: textValue().default(DEFAULT_LLM_MODEL).describe('Vision-capable model.'),
  apiKeyEnv: apiKeyEnv(),
  baseUrl: urlValue().optional().describe('Required for the self-hosted type.'),
  prompt: textValue().default(DEFAULT_VISION_PROMPT).describe('Prompt for describing the image.'),
  maxTokens: numberValue({ min: 1, integer: true }).default(DEFAULT_VISION_MAX_TOKENS).describe('Maximum tokens of the description.'),
  detail: choiceValue(VISION_DETAILS).default(DEFAULT_VISION_DETAIL).describe('auto, low or high.'),
  language: textValue().optional().describe('ISO 639-1 hint.'),
}).superRefine(baseUrlRequiredFor('compat-vision-selfhosted'))

/** `vision`: without a provider, vision is disabled. */
export const VisionSection = section({
  requireAuth: booleanValue().default(false).describe('Reject images from unauthenticated users.'),
  provider: VisionProvider.optional(),
})
