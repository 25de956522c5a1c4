import { describe, expect, it } from 'vitest'
import type { Principal } from '../../src/session/index.ts'
import { decideCall, visibleTo } from '../../src/tools/policy.ts'
import type { Tool, ToolPolicy } from '../../src/tools/types.ts'

const tool = (name: string, policy: ToolPolicy): Tool => ({
  name,
  description: name,
  parameters: { type: 'object' },
  policy,
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
