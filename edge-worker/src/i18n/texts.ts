/**
 * The built-in texts: what the agent says when the pack says nothing, in English, Spanish and
 * French. VOICE_AUTH_REQUIRED and IMAGE_AUTH_REQUIRED are the manifest spec's default texts
 * table (section "Authentication"); the others are Parley's own (ROOT_TITLE, CREDENTIAL and LOGOUT
 * are the menu keys hologram-ai-agent's packs use; AUTH_SUCCESS_NAME fills `{userName}` with the
 * authenticated identity). Every key can be overridden per
 * language in the pack (`languages.<lang>.strings.<KEY>`; `greetingMessage` and `systemPrompt`
 * by the fields of those names).
 */

import { APPROVAL_TEXTS } from '../flows/approvals/texts.ts'

/** Language of last resort when neither the user's language nor the pack's default has a text. */
export const BUILT_IN_LANGUAGE = 'en'

const en = {
  greetingMessage: 'Hello {userName}! How can I help you today?',
  systemPrompt: 'You are a helpful, friendly assistant. Answer clearly and briefly.',
  /** Stands for `{userName}` while the user's name is unknown. */
  USER_NAME_UNKNOWN: 'there',
  LLM_NOT_CONFIGURED:
    'No language model is configured for this agent yet, so I cannot answer your messages. Please let the operator of this service know.',
  LLM_UNAVAILABLE: 'Sorry, I could not reach the language model just now. Please try again in a moment.',
  VOICE_AUTH_REQUIRED: 'Voice messages require authentication. Please authenticate first to use this feature.',
  IMAGE_AUTH_REQUIRED: 'Images require authentication. Please authenticate first to use this feature.',
  ROOT_TITLE: 'Menu',
  CREDENTIAL: 'Authenticate',
  LOGOUT: 'Log out',
  AUTH_REQUIRED: 'Please authenticate first: choose "Authenticate" in the menu and present your credential.',
  AUTH_SUCCESS: 'You are now authenticated.',
  AUTH_SUCCESS_NAME: 'You are now authenticated as {userName}.',
  AUTH_FAILED: 'Authentication failed: your credential could not be verified. You are still a guest.',
  AUTH_REFUSED: 'The credential was not presented, so you are still a guest.',
  AUTH_NO_CREDENTIAL:
    'The credential was not presented, so you are still a guest. If you do not hold it yet, accept the invitation I am sending you: it connects you to the service that issues it.',
  AUTH_ALREADY: 'You are already authenticated as {userName}.',
  AUTH_NOT_AVAILABLE: 'Authentication is not available on this service.',
  LOGOUT_DONE: 'You are logged out.',
  ...APPROVAL_TEXTS.en,
  MCP_CONFIG_FIELD: 'Configuring {server}: please send {label}.',
  MCP_CONFIG_SAVED: 'The configuration of {server} is saved and its tools are ready.',
  MCP_CONFIG_INVALID: 'The configuration of {server} did not work (the server refused it or could not be reached), so it was not saved.',
  MCP_CONFIG_ABORTED: 'Configuration cancelled; nothing more was saved.',
  MCP_CONFIG_NONE: 'There is nothing to configure on this service.',
  MCP_CONFIG_UNAVAILABLE: '{server} cannot be configured: this service has no key to keep secrets. Please let its operator know.',
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
    LLM_NOT_CONFIGURED:
      'Este agente aún no tiene un modelo de lenguaje configurado, así que no puedo responder tus mensajes. Por favor, avisa al operador de este servicio.',
    LLM_UNAVAILABLE: 'Lo siento, no pude contactar al modelo de lenguaje en este momento. Inténtalo de nuevo en un momento.',
    VOICE_AUTH_REQUIRED: 'Los mensajes de voz requieren autenticación. Por favor, autentícate primero para usar esta función.',
    IMAGE_AUTH_REQUIRED: 'Las imágenes requieren autenticación. Por favor, autentícate primero para usar esta función.',
    ROOT_TITLE: 'Menú',
    CREDENTIAL: 'Autenticarse',
    LOGOUT: 'Cerrar sesión',
    AUTH_REQUIRED: 'Primero debes autenticarte: elige «Autenticarse» en el menú y presenta tu credencial.',
    AUTH_SUCCESS: 'Te has autenticado.',
    AUTH_SUCCESS_NAME: 'Te has autenticado como {userName}.',
    AUTH_FAILED: 'La autenticación falló: no se pudo verificar tu credencial. Sigues como invitado.',
    AUTH_REFUSED: 'No se presentó la credencial, así que sigues como invitado.',
    AUTH_NO_CREDENTIAL:
      'No se presentó la credencial, así que sigues como invitado. Si aún no la tienes, acepta la invitación que te envío: te conecta con el servicio que la emite.',
    AUTH_ALREADY: 'Ya estás autenticado como {userName}.',
    AUTH_NOT_AVAILABLE: 'La autenticación no está disponible en este servicio.',
    LOGOUT_DONE: 'Has cerrado sesión.',
    ...APPROVAL_TEXTS.es,
    MCP_CONFIG_FIELD: 'Configurando {server}: por favor, envía {label}.',
    MCP_CONFIG_SAVED: 'La configuración de {server} se guardó y sus herramientas están listas.',
    MCP_CONFIG_INVALID: 'La configuración de {server} no funcionó (el servidor la rechazó o no se pudo contactar), así que no se guardó.',
    MCP_CONFIG_ABORTED: 'Configuración cancelada; no se guardó nada más.',
    MCP_CONFIG_NONE: 'No hay nada que configurar en este servicio.',
    MCP_CONFIG_UNAVAILABLE: 'No se puede configurar {server}: este servicio no tiene una clave para guardar secretos. Avisa a su operador.',
  },
  fr: {
    greetingMessage: 'Bonjour {userName} ! Comment puis-je vous aider aujourd’hui ?',
    systemPrompt: 'Vous êtes un assistant aimable et serviable. Répondez en français, clairement et brièvement.',
    USER_NAME_UNKNOWN: 'à vous',
    LLM_NOT_CONFIGURED:
      'Aucun modèle de langage n’est encore configuré pour cet agent, je ne peux donc pas répondre à vos messages. Merci de prévenir l’opérateur de ce service.',
    LLM_UNAVAILABLE: 'Désolé, je n’ai pas pu joindre le modèle de langage. Veuillez réessayer dans un instant.',
    VOICE_AUTH_REQUIRED:
      "Les messages vocaux nécessitent une authentification. Veuillez vous authentifier d'abord pour utiliser cette fonctionnalité.",
    IMAGE_AUTH_REQUIRED:
      "Les images nécessitent une authentification. Veuillez vous authentifier d'abord pour utiliser cette fonctionnalité.",
    ROOT_TITLE: 'Menu',
    CREDENTIAL: 'S’authentifier',
    LOGOUT: 'Se déconnecter',
    AUTH_REQUIRED: 'Veuillez d’abord vous authentifier : choisissez « S’authentifier » dans le menu et présentez votre attestation.',
    AUTH_SUCCESS: 'Vous êtes authentifié.',
    AUTH_SUCCESS_NAME: 'Vous êtes authentifié en tant que {userName}.',
    AUTH_FAILED: 'L’authentification a échoué : votre attestation n’a pas pu être vérifiée. Vous restez invité.',
    AUTH_REFUSED: 'L’attestation n’a pas été présentée, vous restez donc invité.',
    AUTH_NO_CREDENTIAL:
      'L’attestation n’a pas été présentée, vous restez donc invité. Si vous ne la détenez pas encore, acceptez l’invitation que je vous envoie : elle vous relie au service qui l’émet.',
    AUTH_ALREADY: 'Vous êtes déjà authentifié en tant que {userName}.',
    AUTH_NOT_AVAILABLE: 'L’authentification n’est pas disponible sur ce service.',
    LOGOUT_DONE: 'Vous êtes déconnecté.',
    ...APPROVAL_TEXTS.fr,
    MCP_CONFIG_FIELD: 'Configuration de {server} : veuillez envoyer {label}.',
    MCP_CONFIG_SAVED: 'La configuration de {server} est enregistrée et ses outils sont prêts.',
    MCP_CONFIG_INVALID:
      'La configuration de {server} n’a pas fonctionné (le serveur l’a refusée ou n’a pas pu être joint) ; elle n’a pas été enregistrée.',
    MCP_CONFIG_ABORTED: 'Configuration annulée ; rien de plus n’a été enregistré.',
    MCP_CONFIG_NONE: 'Il n’y a rien à configurer sur ce service.',
    MCP_CONFIG_UNAVAILABLE:
      'Impossible de configurer {server} : ce service n’a pas de clé pour conserver les secrets. Veuillez prévenir son opérateur.',
  },
}
