/** Pure parts of authentication and the menu: roles in each form, visibleWhen, labels, menu diffing. */
import { resolveAgentPack } from '@parley/shared/agent-pack'
import { describe, expect, it } from 'vitest'
import { identityFromClaims, parseRoles, requestedAttributes } from '../../src/flows/authentication/roles.ts'
import { refreshMenu } from '../../src/flows/menu/index.ts'
import { isVisible, menuFor, type MenuFacts } from '../../src/flows/menu/menu.ts'
import { applyPatch, newSession } from '../../src/session/index.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const pack = (yaml: string, env: Record<string, string> = {}) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, env).config
const completed = {
  type: 'connection-state-updated',
  connectionId: CONNECTION,
  invitationId: crypto.randomUUID(),
  state: 'completed',
} as const
const text = {
  type: 'message-received',
  message: { type: 'text', id: 'm', connectionId: CONNECTION, timestamp: 0, threadId: null, content: 'hi' },
} as const

describe('parseRoles', () => {
  it('reads one role, a comma-separated list and a JSON array', () => {
    expect(parseRoles('editor', 'user')).toEqual(['editor'])
    expect(parseRoles(' editor, approver ,editor,', 'user')).toEqual(['editor', 'approver'])
    expect(parseRoles('["editor","approver"]', 'user')).toEqual(['editor', 'approver'])
  })
  it('falls back to the default role when there is no value or no name in it', () => {
    expect(parseRoles(undefined, 'user')).toEqual(['user'])
    expect(parseRoles(' , ', 'guest')).toEqual(['guest'])
    expect(parseRoles('[]', 'user')).toEqual(['user'])
  })
  it('reads a bracketed list that is not JSON as a comma-separated list', () => {
    expect(parseRoles('[editor, approver]', 'user')).toEqual(['editor', 'approver'])
  })
})

describe('identityFromClaims', () => {
  const auth = pack(
    'flows: { authentication: { enabled: true, userIdentityAttribute: email, rolesAttribute: roles, defaultRole: member } }',
  ).flows.authentication
  it('takes the identity attribute and the roles attribute', () => {
    expect(
      identityFromClaims(auth, [
        { name: 'email', value: 'ana@example.org' },
        { name: 'roles', value: 'a,b' },
      ]),
    ).toEqual({ identity: 'ana@example.org', roles: ['a', 'b'] })
    expect(identityFromClaims(auth, [{ name: 'email', value: 'ana@example.org' }])).toEqual({
      identity: 'ana@example.org',
      roles: ['member'],
    })
    expect(requestedAttributes(auth)).toEqual(['email', 'roles'])
  })
  it('has no identity when the attribute is missing or blank', () => {
    expect(identityFromClaims(auth, [{ name: 'email', value: '  ' }])).toBeUndefined()
    expect(identityFromClaims(auth, [{ name: 'name', value: 'Ana' }])).toBeUndefined()
  })
  it('defaults: identity from name, role user; env overrides apply (ROLES_ATTRIBUTE, ADMIN_USERS)', () => {
    const config = pack('flows: { authentication: { enabled: true } }', { ROLES_ATTRIBUTE: 'grants', ADMIN_USERS: 'Ana, Bo' })
    expect(config.flows.authentication.adminUsers).toEqual(['Ana', 'Bo'])
    expect(
      identityFromClaims(config.flows.authentication, [
        { name: 'name', value: 'Ana' },
        { name: 'grants', value: '["x"]' },
      ]),
    ).toEqual({ identity: 'Ana', roles: ['x'] })
  })
})

describe('visibleWhen', () => {
  const guest: MenuFacts = { authenticated: false, configuring: false, approvalRequestCount: 0, pendingApprovalCount: 0 }
  const user: MenuFacts = { ...guest, authenticated: true }
  it('evaluates every condition', () => {
    expect(
      [
        undefined,
        'always',
        'authenticated',
        'unauthenticated',
        'configuring',
        'notConfiguring',
        'hasApprovalRequests',
        'hasPendingApprovals',
      ].map((when) => isVisible(when as never, guest)),
    ).toEqual([true, true, false, true, false, true, false, false])
    expect(isVisible('authenticated', user)).toBe(true)
    expect(isVisible('configuring', { ...guest, configuring: true })).toBe(true)
    expect(isVisible('hasApprovalRequests', { ...guest, approvalRequestCount: 2 })).toBe(true)
    expect(isVisible('hasPendingApprovals', { ...guest, pendingApprovalCount: 1 })).toBe(true)
  })
})

describe('the menu', () => {
  const config = pack(`
languages:
  en: { strings: { SIGN_IN: "Sign in" } }
  es: { strings: { SIGN_IN: "Entrar", ROOT_TITLE: "Opciones" } }
flows:
  authentication: { enabled: true, credentialDefinitionId: "cred-def" }
  menu:
    items:
      - { id: in, labelKey: SIGN_IN, action: authenticate, visibleWhen: unauthenticated }
      - { id: out, labelKey: LOGOUT, action: logout, visibleWhen: authenticated }
      - { id: help, label: Help }
      - { id: approvals, label: Approvals, visibleWhen: hasPendingApprovals, badge: pendingApprovalCount }
`)
  it("shows the items whose visibleWhen holds, labelled in the user's language", () => {
    expect(menuFor(config, newSession())).toEqual({
      title: 'Menu',
      options: [
        { id: 'in', title: 'Sign in' },
        { id: 'help', title: 'Help' },
      ],
    })
    expect(menuFor(config, { ...newSession(), language: 'es', identity: 'ana' })).toEqual({
      title: 'Opciones',
      options: [
        { id: 'out', title: 'Cerrar sesión' },
        { id: 'help', title: 'Help' },
      ],
    })
  })
  it('without items, authentication enabled gives the fixed CREDENTIAL / LOGOUT entries; nothing enabled gives no menu', () => {
    const fixed = pack('flows: { authentication: { enabled: true } }')
    expect(menuFor(fixed, newSession())?.options).toEqual([{ id: 'authenticate', title: 'Authenticate' }])
    expect(menuFor(fixed, { ...newSession(), language: 'fr', identity: 'x' })).toEqual({
      title: 'Menu',
      options: [{ id: 'logout', title: 'Se déconnecter' }],
    })
    expect(menuFor(pack('{}'), newSession())).toBeUndefined()
  })
  it('is sent when the connection completes and again only when it changes', () => {
    expect(refreshMenu(text, newSession(), config, CONNECTION)).toEqual({})
    const first = refreshMenu(completed, newSession(), config, CONNECTION)
    expect(first.command?.name === 'send-message' && first.command.message).toMatchObject({
      type: 'contextual-menu-update',
      options: [{ id: 'in' }, { id: 'help' }],
    })
    let session = applyPatch(newSession(), first.patch!)
    expect(refreshMenu(text, session, config, CONNECTION)).toEqual({})
    expect(refreshMenu(completed, session, config, CONNECTION)).toEqual({})
    session = applyPatch(session, { identity: 'ana' })
    const changed = refreshMenu(text, session, config, CONNECTION)
    expect(changed.command?.name === 'send-message' && changed.command.message).toMatchObject({ options: [{ id: 'out' }, { id: 'help' }] })
    session = applyPatch(session, changed.patch!)
    expect(refreshMenu(text, session, config, CONNECTION)).toEqual({})
  })
})
