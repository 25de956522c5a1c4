/**
 * The session of one conversation: what the controller knows about the user and where they are
 * in the flows. Stored by the conversation object (one row), read and patched by flows.
 */

/** What the controller knows about the user of one connection. */
export interface Session {
  /** Language code the user gets texts and prompts in (i18n `chooseLanguage`); undefined until known. */
  language?: string
  /** The profile's display name (`{userName}`). */
  userName?: string
  /** Authenticated identity (flows.authentication.userIdentityAttribute); undefined for a guest. */
  identity?: string
  /** Roles of the authenticated user. */
  roles: string[]
  /** Flow holding the conversation for a multi-step exchange, if any. */
  activeFlow?: string
  /** Each flow's own state, by flow name (JSON). */
  flowState: Record<string, unknown>
  /** A flow's timer: the conversation hands that flow a `timer` event at `at` (ms since the epoch). */
  timer?: { flow: string; at: number }
}

/** Changes a flow asks for; `undefined` values clear a field. `flowState` entries are merged by flow name. */
export type SessionPatch = Partial<Omit<Session, 'flowState'>> & { flowState?: Record<string, unknown> }

/** A fresh session: nothing known yet. */
export function newSession(): Session {
  return { roles: [], flowState: {} }
}

/** `session` with `patch` applied (pure). */
export function applyPatch(session: Session, patch: SessionPatch): Session {
  const { flowState, ...fields } = patch
  return { ...session, ...fields, flowState: { ...session.flowState, ...flowState } }
}

/** Who is asking, for access decisions (tools/policy.ts). */
export interface Principal {
  /** Authenticated identity; undefined for a guest. */
  identity?: string
  roles: readonly string[]
  /** In flows.authentication.adminUsers (or adminAvatars): bypasses every role check. */
  admin: boolean
}

/** The principal of `session`; `adminUsers` are the identities with admin rights. */
export function principalOf(session: Session, adminUsers: readonly string[] = []): Principal {
  return {
    identity: session.identity,
    roles: session.roles,
    admin: session.identity !== undefined && adminUsers.includes(session.identity),
  }
}
