/**
 * Flow `welcome` (manifest spec "flows.welcome"): learns who the user is from their profile
 * message (language from `preferredLanguage`, `{userName}` from `displayName`) and greets them
 * once, in their language.
 *
 * - `sendOnProfile` false or unset: the greeting goes when the connection completes.
 * - `sendOnProfile` true: the greeting waits for the profile, so it can use the user's language
 *   and name. When no profile arrives within `PROFILE_WAIT_MS` of the connection completing, the
 *   greeting goes anyway, in the default language with the unknown-name text (a timer, on the
 *   conversation's alarm). A profile that arrives later still sets the language and name for
 *   what follows.
 * - `enabled: false`: no greeting; profiles still set language and name.
 * - `flows.authentication.required`: a guest's greeting is followed by the AUTH_REQUIRED prompt.
 * - `templateKey`: the greeting is `languages.<lang>.strings[templateKey]` (`greetingMessage` or
 *   the deprecated `welcomeMessage` name the greeting field itself); a key with no text in the
 *   pack falls back to the greeting.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { sendText } from '../../commands/index.ts'
import { chooseLanguage, fillUserName, packTextFor, textFor } from '../../i18n/index.ts'
import type { Session, SessionPatch } from '../../session/index.ts'
import { promptsToAuthenticate } from '../authentication/index.ts'
import type { Flow, FlowEvent } from '../types.ts'

/** How long a greeting waits for the profile when `sendOnProfile` is true, ms. */
export const PROFILE_WAIT_MS = 5_000

/** The flow's state in the session. */
interface WelcomeState {
  greeted?: boolean
  /** The connection has completed (a greeting may be owed). */
  completed?: boolean
}

function stateOf(session: Session): WelcomeState {
  return (session.flowState.welcome as WelcomeState | undefined) ?? {}
}

const isCompleted = (event: FlowEvent) => event.type === 'connection-state-updated' && event.state === 'completed'
const isProfile = (event: FlowEvent) => event.type === 'message-received' && event.message.type === 'profile'

/** The greeting for `session` as a command, or undefined when the flow is disabled. */
export function greeting(config: AgentPackConfig, session: Session, connectionId: string): TunnelCommand | undefined {
  const welcome = config.flows.welcome
  if (welcome.enabled === false) return undefined
  const language = session.language ?? config.metadata.defaultLanguage
  const key = welcome.templateKey
  const custom = key && key !== 'greetingMessage' && key !== 'welcomeMessage' ? packTextFor(config, language, key) : undefined
  const template = custom ?? textFor(config, language, 'greetingMessage')
  return sendText(connectionId, fillUserName(config, language, template, session.userName))
}

export const welcomeFlow: Flow = {
  name: 'welcome',
  claims(event, session) {
    if (isProfile(event)) return true
    if (isCompleted(event)) return !stateOf(session).completed
    return event.type === 'timer' && !stateOf(session).greeted
  },
  async handle({ event, session, config, send, connectionId, now }) {
    const state = stateOf(session)
    const patch: SessionPatch = {}
    if (event.type === 'message-received' && event.message.type === 'profile') {
      const { preferredLanguage, displayName } = event.message
      if (preferredLanguage) patch.language = chooseLanguage(config, preferredLanguage)
      if (displayName) patch.userName = displayName
    }
    const completed = state.completed || isCompleted(event)
    const sendOnProfile = config.flows.welcome.sendOnProfile === true
    const greetNow =
      !state.greeted &&
      (event.type === 'timer' || (isProfile(event) && (sendOnProfile || completed)) || (isCompleted(event) && !sendOnProfile))
    // A profile that came before the completion, with sendOnProfile unset, is used when it completes.
    const next: WelcomeState = { ...state, completed }
    if (greetNow) {
      const greeted = { ...session, ...patch }
      const command = greeting(config, greeted, connectionId)
      if (command) send(command)
      if (promptsToAuthenticate(greeted, config))
        send(sendText(connectionId, textFor(config, greeted.language ?? config.metadata.defaultLanguage, 'AUTH_REQUIRED')))
      next.greeted = true
      patch.timer = undefined
    } else if (isCompleted(event) && sendOnProfile && !state.greeted) {
      patch.timer = { flow: 'welcome', at: now + PROFILE_WAIT_MS }
    }
    return { session: { ...patch, flowState: { welcome: next } } }
  },
}
