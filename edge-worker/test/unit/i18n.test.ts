import { resolveAgentPack } from '@parley/shared/agent-pack'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_TEXTS, chooseLanguage, fillUserName, textFor } from '../../src/i18n/index.ts'
import { systemPromptFor } from '../../src/llm/prompt.ts'

const pack = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config

describe('chooseLanguage', () => {
  const config = pack('metadata: { defaultLanguage: fr }\nlanguages: { es-AR: { greetingMessage: Che } }')

  it("takes the profile's preferredLanguage: an exact pack entry, else its primary subtag", () => {
    expect(chooseLanguage(config, 'es-AR')).toBe('es-AR')
    expect(chooseLanguage(config, 'es-MX')).toBe('es')
    expect(chooseLanguage(config, 'DE')).toBe('de')
  })

  it('falls back to metadata.defaultLanguage, itself en by default', () => {
    expect(chooseLanguage(config, null)).toBe('fr')
    expect(chooseLanguage(config, '  ')).toBe('fr')
    expect(chooseLanguage(pack(''), undefined)).toBe('en')
  })
})

describe('textFor', () => {
  const config = pack(`
metadata: { defaultLanguage: en }
languages:
  en: { greetingMessage: "Hi {userName}", strings: { LLM_UNAVAILABLE: Model down, CUSTOM: Custom en } }
  es: { strings: { CUSTOM: Propio } }
`)

  it("looks in the user's language, then the default language, then the built-in texts", () => {
    expect(textFor(config, 'es', 'CUSTOM')).toBe('Propio')
    expect(textFor(config, 'es', 'greetingMessage')).toBe('Hi {userName}')
    expect(textFor(config, 'es', 'LLM_UNAVAILABLE')).toBe('Model down')
    expect(textFor(config, 'es', 'VOICE_AUTH_REQUIRED')).toBe(BUILT_IN_TEXTS.es!.VOICE_AUTH_REQUIRED)
    expect(textFor(config, 'de', 'CUSTOM')).toBe('Custom en')
    expect(textFor(config, 'de', 'IMAGE_AUTH_REQUIRED')).toBe(BUILT_IN_TEXTS.en!.IMAGE_AUTH_REQUIRED)
    expect(textFor(config, 'en', 'NOT_A_KEY')).toBeUndefined()
  })

  it("has the spec's default texts in en, es and fr", () => {
    const bare = pack('')
    expect(textFor(bare, 'fr', 'VOICE_AUTH_REQUIRED')).toBe(
      "Les messages vocaux nécessitent une authentification. Veuillez vous authentifier d'abord pour utiliser cette fonctionnalité.",
    )
    expect(textFor(bare, 'es', 'IMAGE_AUTH_REQUIRED')).toBe(
      'Las imágenes requieren autenticación. Por favor, autentícate primero para usar esta función.',
    )
    expect(textFor(bare, 'es', 'greetingMessage')).toBe('¡Hola {userName}! ¿En qué puedo ayudarte hoy?')
  })

  it("fills {userName} with the display name, or the language's text for an unknown name", () => {
    const bare = pack('')
    expect(fillUserName(bare, 'es', '¡Hola {userName}!', 'Ana')).toBe('¡Hola Ana!')
    expect(fillUserName(bare, 'en', 'Hello {userName}!', null)).toBe('Hello there!')
  })
})

describe('systemPromptFor', () => {
  it("gives the model both llm.agentPrompt and the language's systemPrompt", () => {
    const config = pack('llm: { agentPrompt: Persona }\nlanguages: { en: { systemPrompt: English rules }, es: { systemPrompt: Reglas } }')
    expect(systemPromptFor(config, 'es')).toBe('Persona\n\nReglas')
    expect(systemPromptFor(config, 'fr')).toBe('Persona\n\nEnglish rules')
  })

  it('uses the built-in prompt of the language when the pack has none', () => {
    expect(systemPromptFor(pack(''), 'es')).toBe(BUILT_IN_TEXTS.es!.systemPrompt)
    expect(systemPromptFor(pack('llm: { agentPrompt: Persona }'), 'es')).toBe('Persona')
  })
})
