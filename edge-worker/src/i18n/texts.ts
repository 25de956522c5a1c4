/**
 * The built-in texts: what the agent says when the pack says nothing, in English, Spanish and
 * French. VOICE_AUTH_REQUIRED and IMAGE_AUTH_REQUIRED are the manifest spec's default texts
 * table (section "Authentication"); the others are Parley's own. Every key can be overridden per
 * language in the pack (`languages.<lang>.strings.<KEY>`; `greetingMessage` and `systemPrompt`
 * by the fields of those names).
 */

/** Language of last resort when neither the user's language nor the pack's default has a text. */
export const BUILT_IN_LANGUAGE = 'en'

const en = {
  greetingMessage: 'Hello {userName}! How can I help you today?',
  systemPrompt: 'You are a helpful, friendly assistant. Answer clearly and briefly.',
  /** Stands for `{userName}` while the user's name is unknown. */
  USER_NAME_UNKNOWN: 'there',
  LLM_NOT_CONFIGURED: 'No language model is configured for this agent yet, so I cannot answer your messages. Please let the operator of this service know.',
  LLM_UNAVAILABLE: 'Sorry, I could not reach the language model just now. Please try again in a moment.',
  VOICE_AUTH_REQUIRED: 'Voice messages require authentication. Please authenticate first to use this feature.',
  IMAGE_AUTH_REQUIRED: 'Images require authentication. Please authenticate first to use this feature.',
}

/** A key of the built-in texts. */
export type TextKey = keyof typeof en

/** Built-in texts by language code, then key. */
export const BUILT_IN_TEXTS: Record<string, Record<TextKey, string>> = {
  en,
  es: {
    greetingMessage: '¡Hola {userName}! ¿En qué puedo ayudarte hoy?',
    systemPrompt: 'Eres un asistente amable y servicial. Responde en español, con claridad y brevedad.',
    USER_NAME_UNKNOWN: 'amigo',
    LLM_NOT_CONFIGURED: 'Este agente aún no tiene un modelo de lenguaje configurado, así que no puedo responder tus mensajes. Por favor, avisa al operador de este servicio.',
    LLM_UNAVAILABLE: 'Lo siento, no pude contactar al modelo de lenguaje en este momento. Inténtalo de nuevo en un momento.',
    VOICE_AUTH_REQUIRED: 'Los mensajes de voz requieren autenticación. Por favor, autentícate primero para usar esta función.',
    IMAGE_AUTH_REQUIRED: 'Las imágenes requieren autenticación. Por favor, autentícate primero para usar esta función.',
  },
  fr: {
    greetingMessage: 'Bonjour {userName} ! Comment puis-je vous aider aujourd’hui ?',
    systemPrompt: 'Vous êtes un assistant aimable et serviable. Répondez en français, clairement et brièvement.',
    USER_NAME_UNKNOWN: 'à vous',
    LLM_NOT_CONFIGURED: 'Aucun modèle de langage n’est encore configuré pour cet agent, je ne peux donc pas répondre à vos messages. Merci de prévenir l’opérateur de ce service.',
    LLM_UNAVAILABLE: 'Désolé, je n’ai pas pu joindre le modèle de langage. Veuillez réessayer dans un instant.',
    VOICE_AUTH_REQUIRED: 'Les messages vocaux nécessitent une authentification. Veuillez vous authentifier d\'abord pour utiliser cette fonctionnalité.',
    IMAGE_AUTH_REQUIRED: 'Les images nécessitent une authentification. Veuillez vous authentifier d\'abord pour utiliser cette fonctionnalité.',
  },
}
