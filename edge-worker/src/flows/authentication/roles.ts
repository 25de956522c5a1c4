/**
 * Roles and identity from a verified credential (manifest spec "Authentication", rule 1): the
 * identity is the value of `userIdentityAttribute`; roles come from the value of `rolesAttribute`,
 * written as one role (`editor`), a comma-separated list (`editor, approver`) or a JSON array
 * (`["editor","approver"]`), falling back to `defaultRole`. Pure functions.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Claim } from '@parley/shared/messages'

/**
 * The roles written in `value`: a JSON array of strings, a comma-separated list or one role;
 * names are trimmed, empty ones and repeats dropped, order kept. `defaultRole` when `value` is
 * absent or names no role. A value that starts with `[` but is not a JSON array of strings is
 * read as a comma-separated list (so `[admin` still yields a role rather than nothing).
 */
export function parseRoles(value: string | undefined, defaultRole: string): string[] {
  const text = value?.trim() ?? ''
  let names: string[] = text.split(',')
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (Array.isArray(parsed) && parsed.every((entry) => typeof entry === 'string')) names = parsed
    } catch {
      names = text.replace(/^\[|\]$/g, '').split(',')
    }
  }
  const roles = [...new Set(names.map((name) => name.trim()).filter((name) => name.length > 0))]
  return roles.length > 0 ? roles : [defaultRole]
}

/** Who a verified credential says the user is. */
export interface CredentialIdentity {
  identity: string
  roles: string[]
}

/**
 * The identity and roles that `claims` (a verified presentation's revealed attributes) give under
 * `flows.authentication`; undefined when the identity attribute is missing or empty.
 */
export function identityFromClaims(
  auth: AgentPackConfig['flows']['authentication'],
  claims: readonly Claim[],
): CredentialIdentity | undefined {
  const value = (name: string | undefined) => claims.find((claim) => claim.name === name)?.value
  const identity = value(auth.userIdentityAttribute)?.trim()
  if (!identity) return undefined
  const roles = parseRoles(auth.rolesAttribute ? value(auth.rolesAttribute) : undefined, auth.defaultRole)
  return { identity, roles }
}

/** The identities with admin rights (spec rule 3): `adminUsers` and the legacy `adminAvatars`. */
export function adminIdentities(auth: AgentPackConfig['flows']['authentication']): string[] {
  return [...auth.adminUsers, ...auth.adminAvatars]
}

/** The attributes a proof request asks for: the identity attribute and, when configured, the roles attribute. */
export function requestedAttributes(auth: AgentPackConfig['flows']['authentication']): string[] {
  return [...new Set([auth.userIdentityAttribute, ...(auth.rolesAttribute ? [auth.rolesAttribute] : [])])]
}
