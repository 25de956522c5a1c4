/**
 * Flow `authentication` (manifest spec "flows.authentication" and "Authentication", rules 1, 2
 * and 6): credential-based login, and the gates that keep guests out.
 *
 * - Action `authenticate` (from the menu): sends an `identity-proof-request` for
 *   `credentialDefinitionId` under a message id kept in the session; agent-node makes that id the
 *   proof exchange's thread, so the `identity-proof-submit` ending it is recognised by its
 *   `threadId`. A verified submit sets the session's identity (`userIdentityAttribute`) and roles
 *   (`rolesAttribute`, else `defaultRole`), closes the exchange with an `ok` result and says
 *   AUTH_SUCCESS_NAME (the credential reveals `name`) or AUTH_SUCCESS. A presentation the user did
 *   not make (`refused`, `no-compatible-credentials`: the user declined or holds no such
 *   credential) says so and, when `issuerServiceDid` is set, sends an invitation to it with
 *   AUTH_NO_CREDENTIAL; any other failure says AUTH_FAILED. Either way the user stays a guest.
 * - Action `logout`: forgets identity and roles (LOGOUT_DONE). A connection that ends
 *   (`terminated`, `abandoned`) logs its user out silently, so the directory forgets it.
 * - Gates, for a guest: with `required`, every text or media message gets AUTH_REQUIRED and
 *   never reaches the model; with `speechToText.requireAuth` a voice note (media with an `audio/*`
 *   item) gets VOICE_AUTH_REQUIRED, with `vision.requireAuth` an image gets IMAGE_AUTH_REQUIRED.
 *   The welcome flow adds the AUTH_REQUIRED prompt to the greeting (`promptsToAuthenticate`).
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { IdentityProofSubmitEnvelope } from '@parley/shared/messages'
import { identityProofResult, inviteToDid, requestIdentityProof, sendText } from '../../commands/index.ts'
import { textFor, type TextKey } from '../../i18n/index.ts'
import type { Session } from '../../session/index.ts'
import type { Flow, FlowContext, FlowEvent, FlowResult } from '../types.ts'
import { identityFromClaims, requestedAttributes } from './roles.ts'

/** The flow's state in the session: the message id of the proof request awaiting its submit. */
interface AuthenticationState {
  pendingProof?: string
}

function stateOf(session: Session): AuthenticationState {
  return (session.flowState.authentication as AuthenticationState | undefined) ?? {}
}

const languageOf = (session: Session, config: AgentPackConfig) => session.language ?? config.metadata.defaultLanguage

/** The localized text `key` as a `send-message` command to the user. */
function say(context: Pick<FlowContext, 'config' | 'session' | 'connectionId' | 'send'>, key: TextKey, userName?: string): void {
  const text = textFor(context.config, languageOf(context.session, context.config), key)
  context.send(sendText(context.connectionId, userName === undefined ? text : text.replaceAll('{userName}', userName)))
}

/** The submit answering this session's pending proof request, if `event` is one. */
function pendingSubmit(event: FlowEvent, session: Session): IdentityProofSubmitEnvelope | undefined {
  if (event.type !== 'message-received' || event.message.type !== 'identity-proof-submit') return undefined
  const pending = stateOf(session).pendingProof
  return pending !== undefined && event.message.threadId === pending ? event.message : undefined
}

/** The gate text a guest's `event` gets, if any (spec "Authentication" rules 2 and 6). */
export function gateFor(event: FlowEvent, session: Session, config: AgentPackConfig): TextKey | undefined {
  if (session.identity !== undefined || event.type !== 'message-received') return undefined
  const { message } = event
  if (message.type === 'media') {
    const types = message.items.map((item) => item.mimeType.toLowerCase())
    if (config.speechToText.requireAuth && types.some((type) => type.startsWith('audio/'))) return 'VOICE_AUTH_REQUIRED'
    if (config.vision.requireAuth && types.some((type) => type.startsWith('image/'))) return 'IMAGE_AUTH_REQUIRED'
  }
  if (config.flows.authentication.required && (message.type === 'text' || message.type === 'media')) return 'AUTH_REQUIRED'
  return undefined
}

/** Whether a guest's greeting is followed by the AUTH_REQUIRED prompt (`required: true`). */
export function promptsToAuthenticate(session: Session, config: AgentPackConfig): boolean {
  return config.flows.authentication.required && session.identity === undefined
}

/** Whether `event` ends the connection of an authenticated user. */
const endsSession = (event: FlowEvent, session: Session) =>
  session.identity !== undefined &&
  event.type === 'connection-state-updated' &&
  (event.state === 'terminated' || event.state === 'abandoned')

/** The session patch of a user who is a guest again. */
const LOGGED_OUT = { identity: undefined, roles: [], flowState: { authentication: {} satisfies AuthenticationState } }

export const authenticationFlow: Flow = {
  name: 'authentication',
  claims: (event, session, config) =>
    pendingSubmit(event, session) !== undefined || endsSession(event, session) || gateFor(event, session, config) !== undefined,
  async handle(context) {
    const { event, session, config } = context
    const submit = pendingSubmit(event, session)
    if (submit) return verdict(context, submit)
    if (endsSession(event, session)) return { session: LOGGED_OUT }
    say(context, gateFor(event, session, config)!)
    return {}
  },
}

/** Reads the submit of the pending proof request: the user is authenticated, or stays a guest. */
function verdict(context: FlowContext, submit: IdentityProofSubmitEnvelope): FlowResult {
  const { config, connectionId, send, log } = context
  const auth = config.flows.authentication
  const cleared = { flowState: { authentication: {} satisfies AuthenticationState } }
  const item = submit.submittedProofItems[0]
  if (item?.verified) {
    const claims = item.claims ?? []
    const found = identityFromClaims(auth, claims)
    if (!found) {
      log.warn('verified credential lacks the identity attribute', { attribute: auth.userIdentityAttribute })
      send(
        identityProofResult(connectionId, submit.threadId!, item.id, {
          ok: false,
          description: `the credential has no ${auth.userIdentityAttribute}`,
        }),
      )
      say(context, 'AUTH_FAILED')
      return { session: cleared }
    }
    send(identityProofResult(connectionId, submit.threadId!, item.id, { ok: true }))
    const name = claims.find((claim) => claim.name === 'name')?.value.trim()
    if (name) say(context, 'AUTH_SUCCESS_NAME', name)
    else say(context, 'AUTH_SUCCESS')
    return { session: { ...cleared, identity: found.identity, roles: found.roles } }
  }
  const notPresented = item?.errorCode === 'refused' || item?.errorCode === 'no-compatible-credentials'
  log.info('identity proof not verified', { errorCode: item?.errorCode ?? null })
  if (notPresented && auth.issuerServiceDid) {
    say(context, 'AUTH_NO_CREDENTIAL')
    send(inviteToDid(connectionId, auth.issuerServiceDid))
  } else {
    say(context, notPresented ? 'AUTH_REFUSED' : 'AUTH_FAILED')
  }
  return { session: cleared }
}

/**
 * Action `authenticate`: asks the user for the credential, unless authentication is off or not
 * configured (AUTH_NOT_AVAILABLE) or the user is already authenticated (AUTH_ALREADY).
 */
export async function authenticate(context: FlowContext): Promise<FlowResult> {
  const { config, session, connectionId, send } = context
  const auth = config.flows.authentication
  if (!auth.enabled || !auth.credentialDefinitionId) {
    say(context, 'AUTH_NOT_AVAILABLE')
    return {}
  }
  if (session.identity !== undefined) {
    say(context, 'AUTH_ALREADY', session.identity)
    return {}
  }
  const messageId = crypto.randomUUID()
  send(requestIdentityProof(connectionId, messageId, auth.credentialDefinitionId, requestedAttributes(auth)))
  return { session: { flowState: { authentication: { pendingProof: messageId } satisfies AuthenticationState } } }
}

/** Action `logout`: the user becomes a guest again. */
export async function logout(context: FlowContext): Promise<FlowResult> {
  say(context, 'LOGOUT_DONE')
  return { session: LOGGED_OUT }
}
