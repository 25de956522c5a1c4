import { describe, expect, it } from 'vitest'
import type { Principal } from '../../src/session/index.ts'
import { approvalNeeded, decideApprovedCall, decideCall, mayApprove, toolRef, visibleTo } from '../../src/tools/policy.ts'
import type { Tool, ToolAccess, ToolPolicy } from '../../src/tools/types.ts'

const tool = (name: string, policy: ToolPolicy, mcp?: Tool['mcp']): Tool => ({
  name,
  description: name,
  parameters: { type: 'object' },
  policy,
  ...(mcp ? { mcp } : {}),
  execute: async () => name,
})
const tools = [
  tool('weather', { requiresAuth: false }),
  tool('balance', { requiresAuth: true }),
  tool('payroll', { requiresAuth: true, roles: ['hr'] }),
]
const guest: Principal = { roles: [], admin: false }
const user: Principal = { identity: 'alice', roles: ['user'], admin: false }
const hr: Principal = { identity: 'bob', roles: ['hr'], admin: false }
const admin: Principal = { identity: 'root', roles: [], admin: true }
const names = (principal: Principal) => visibleTo(tools, principal).map((t) => t.name)

describe('tool access policy', () => {
  it('hides requiresAuth tools from a guest', () => {
    expect(names(guest)).toEqual(['weather'])
  })

  it('shows an authenticated user the tools of their roles only', () => {
    expect(names(user)).toEqual(['weather', 'balance'])
    expect(names(hr)).toEqual(['weather', 'balance', 'payroll'])
  })

  it('lets admins see every tool', () => {
    expect(names(admin)).toEqual(['weather', 'balance', 'payroll'])
  })

  it('denies a call of a hidden tool as if it did not exist', () => {
    expect(decideCall(tools, 'balance', guest)).toEqual({ allowed: false, reason: "no tool named 'balance' is available to this user" })
    expect(decideCall(tools, 'nope', user)).toEqual({ allowed: false, reason: "no tool named 'nope' is available to this user" })
    expect(decideCall(tools, 'balance', user)).toMatchObject({ allowed: true, tool: { name: 'balance' } })
  })
})

/** A principal by shorthand: `guest`, `admin`, or an identity holding `roles`. */
const who = {
  guest: { roles: [], admin: false },
  employee: { identity: 'eve', roles: ['employee'], admin: false },
  finance: { identity: 'fay', roles: ['finance'], admin: false },
  manager: { identity: 'max', roles: ['manager'], admin: false },
  both: { identity: 'sam', roles: ['finance', 'manager'], admin: false },
  admin: { identity: 'root', roles: [], admin: true },
} satisfies Record<string, Principal>

const roleBased = (fallback?: ToolAccess['default']): ToolAccess => ({
  ...(fallback ? { default: fallback } : {}),
  roles: { guest: ['rate'], employee: ['balance'], finance: ['balance', 'send'] },
  approval: [{ tools: ['send'], approvers: ['manager'], timeoutMinutes: 60 }],
})
const accesses: Record<string, ToolAccess> = {
  'legacy default (public)': {},
  'legacy public + adminOnly': { default: 'public', adminOnly: ['send'] },
  'legacy admin + public list': { default: 'admin', public: ['rate'] },
  'roles, default none (implied)': roleBased(),
  'roles, default none': roleBased('none'),
  'roles, default all': roleBased('all'),
  'roles, legacy default public': roleBased('public'),
}
/** The tools of MCP server `wise`, under registry names other than their own (as when those were taken). */
const serverTools = (access: ToolAccess) =>
  ['rate', 'balance', 'send', 'other'].map((name) => tool(`wise__${name}`, { requiresAuth: false, access }, { server: 'wise', tool: name }))

/** Expected visible tools: [access][principal] → names (the `wise__` prefix left out). */
const matrix: [string, keyof typeof who, string[]][] = [
  ['legacy default (public)', 'guest', ['rate', 'balance', 'send', 'other']],
  ['legacy default (public)', 'employee', ['rate', 'balance', 'send', 'other']],
  ['legacy public + adminOnly', 'guest', ['rate', 'balance', 'other']],
  ['legacy public + adminOnly', 'finance', ['rate', 'balance', 'other']],
  ['legacy public + adminOnly', 'admin', ['rate', 'balance', 'send', 'other']],
  ['legacy admin + public list', 'guest', ['rate']],
  ['legacy admin + public list', 'both', ['rate']],
  ['legacy admin + public list', 'admin', ['rate', 'balance', 'send', 'other']],
  ['roles, default none (implied)', 'guest', ['rate']],
  ['roles, default none (implied)', 'employee', ['rate', 'balance']],
  ['roles, default none', 'guest', ['rate']],
  ['roles, default none', 'employee', ['rate', 'balance']],
  ['roles, default none', 'finance', ['rate', 'balance', 'send']],
  ['roles, default none', 'manager', ['rate']],
  ['roles, default none', 'both', ['rate', 'balance', 'send']],
  ['roles, default none', 'admin', ['rate', 'balance', 'send', 'other']],
  ['roles, default all', 'guest', ['rate']],
  ['roles, default all', 'employee', ['rate', 'balance', 'other']],
  ['roles, default all', 'manager', ['rate', 'other']],
  ['roles, default all', 'admin', ['rate', 'balance', 'send', 'other']],
  ['roles, legacy default public', 'guest', ['rate', 'other']],
  ['roles, legacy default public', 'finance', ['rate', 'balance', 'send', 'other']],
]

describe('toolAccess: the access matrix (roles × default × legacy)', () => {
  it.each(matrix)('%s: %s sees %j', (access, principal, expected) => {
    const visible = visibleTo(serverTools(accesses[access]!), who[principal]).map((t) => t.mcp?.tool)
    expect(visible).toEqual(expected)
    // A call of any tool outside that list is refused, even when the model names it.
    for (const name of ['rate', 'balance', 'send', 'other']) {
      expect(decideCall(serverTools(accesses[access]!), `wise__${name}`, who[principal]).allowed).toBe(expected.includes(name))
    }
  })

  it('keeps requiresAuth and roles on top of access', () => {
    const guarded = tool('wise__rate', { requiresAuth: true, access: roleBased() }, { server: 'wise', tool: 'rate' })
    expect(visibleTo([guarded], who.guest)).toEqual([])
    expect(visibleTo([guarded], who.employee)).toEqual([guarded])
    const hrOnly = tool('wise__rate', { requiresAuth: false, roles: ['hr'], access: roleBased() }, { server: 'wise', tool: 'rate' })
    expect(visibleTo([hrOnly], who.employee)).toEqual([])
  })
})

describe('toolAccess: approvals', () => {
  const tools = serverTools(roleBased('none'))
  it('asks for an approval when the caller holds a tool role but no approver role', () => {
    expect(decideCall(tools, 'wise__send', who.finance)).toMatchObject({
      allowed: true,
      tool: { name: 'wise__send' },
      approval: { approvers: ['manager'], timeoutMinutes: 60 },
    })
    expect(decideCall(tools, 'wise__balance', who.finance)).not.toHaveProperty('approval')
  })

  it('runs at once for a caller holding both roles (self-approval) and for an admin', () => {
    expect(decideCall(tools, 'wise__send', who.both)).not.toHaveProperty('approval')
    expect(decideCall(tools, 'wise__send', who.admin)).not.toHaveProperty('approval')
    expect(approvalNeeded(tools[2]!, who.both)).toBeUndefined()
  })

  it('an approver role alone does not let a user call the tool', () => {
    expect(decideCall(tools, 'wise__send', who.manager)).toMatchObject({ allowed: false })
  })

  it('mayApprove: an approver role or an admin; never a guest', () => {
    expect(mayApprove(who.manager, ['manager'])).toBe(true)
    expect(mayApprove(who.admin, ['manager'])).toBe(true)
    expect(mayApprove(who.finance, ['manager'])).toBe(false)
    expect(mayApprove({ roles: ['manager'], admin: false }, ['manager'])).toBe(false)
  })
})

describe('approved calls: the tool a stored request names', () => {
  // `restart` of two servers and of the registry: the conversation that asked named the MCP ones
  // differently from the approvals object (a user's own server listed before them).
  const access: ToolAccess = { default: 'public', approval: [{ tools: ['restart'], approvers: ['lead'], timeoutMinutes: 5 }] }
  const registry = tool('restart', { requiresAuth: false })
  const ops = tool(
    'ops_restart',
    { requiresAuth: false, access: { ...access, adminOnly: ['restart'] } },
    { server: 'ops', tool: 'restart' },
  )
  const web = tool('restart_2', { requiresAuth: false, access }, { server: 'web', tool: 'restart' })
  const tools = [registry, ops, web]

  it('names an MCP tool by its server and its own name, another tool by its name', () => {
    expect(toolRef(web)).toEqual({ tool: 'restart', server: 'web' })
    expect(toolRef(registry)).toEqual({ tool: 'restart' })
  })

  it('runs the tool of that server, whatever the registry calls it, without asking for approval again', () => {
    expect(decideApprovedCall(tools, { tool: 'restart', server: 'web' }, who.employee)).toEqual({ allowed: true, tool: web })
    expect(decideApprovedCall(tools, { tool: 'restart' }, who.employee)).toEqual({ allowed: true, tool: registry })
  })

  it('refuses a tool the requester may no longer use, or one of a server the tools do not include', () => {
    expect(decideApprovedCall(tools, { tool: 'restart', server: 'ops' }, who.employee)).toEqual({
      allowed: false,
      reason: "no tool named 'restart' on MCP server 'ops' is available to this user",
    })
    expect(decideApprovedCall(tools, { tool: 'restart', server: 'vault' }, who.admin)).toMatchObject({ allowed: false })
    expect(decideApprovedCall(tools, { tool: 'ops_restart' }, who.admin)).toMatchObject({ allowed: false })
  })
})
