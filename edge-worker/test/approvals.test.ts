/**
 * The approvals object in workerd, through its RPC: counts for requester and approvers, who may
 * act, first approver wins when two approve at once, expiry by the alarm, and an approved
 * request's tool (the test Worker's HTTP tool `lookup`) run once as the requester.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { Approvals } from '../src/approvals/index.ts'
import type { ApprovalRequest, ApprovalSubmission } from '../src/approvals/types.ts'
import { directory } from '../src/bindings.ts'
import type { Env as WorkerEnv } from '../src/env.ts'

const rae = { identity: 'rae', roles: ['finance'], admin: false }
const max = { identity: 'max', roles: ['manager'], admin: false }
const flo = { identity: 'flo', roles: ['manager'], admin: false }
const root = { identity: 'root', roles: [], admin: true }

/** A fresh approvals object (one per test: storage is not reset between tests). */
const approvalsObject = () => {
  const namespace = (env as unknown as WorkerEnv).APPROVALS
  return namespace.get(namespace.idFromName(crypto.randomUUID()))
}

const submission = (overrides: Partial<ApprovalSubmission> = {}): ApprovalSubmission => ({
  id: crypto.randomUUID(),
  tool: 'lookup',
  argsJson: JSON.stringify({ query: 'word' }),
  requester: { identity: 'rae', roles: ['finance'], connectionId: crypto.randomUUID() },
  approvers: ['manager'],
  timeoutMinutes: 60,
  ...overrides,
})

/** Resolves with request `id` once `done` holds for it (the object settles transitions after answering). */
async function settled(stub: ReturnType<typeof approvalsObject>, id: string, done: (request: ApprovalRequest) => boolean) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const request = await stub.request(id)
    if (request && done(request)) return request
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`request ${id} not settled`)
}

describe('the approvals object', () => {
  it('counts a pending request for its requester and for every approver; submitting it again changes nothing', async () => {
    const stub = approvalsObject()
    const input = submission()
    const created = await stub.submit(input)
    expect(created).toMatchObject({ id: input.id, status: 'pending', requester: 'rae', approvers: ['manager'], approver: null })
    expect(created.expiresAt - created.createdAt).toBe(60 * 60_000)
    expect(await stub.submit(input)).toEqual(created)
    expect(await stub.counts(rae)).toEqual({ approvalRequestCount: 1, pendingApprovalCount: 0 })
    expect(await stub.counts(max)).toEqual({ approvalRequestCount: 0, pendingApprovalCount: 1 })
    expect(await stub.counts(root)).toEqual({ approvalRequestCount: 0, pendingApprovalCount: 1 })
    expect(await stub.counts({ roles: ['manager'], admin: false })).toEqual({ approvalRequestCount: 0, pendingApprovalCount: 0 })
  })

  it('refuses bad input, and actions by users who may not act', async () => {
    const stub = approvalsObject()
    await runInDurableObject(stub, async (instance) => {
      const approvals = instance as unknown as Approvals
      await expect(approvals.submit(submission({ timeoutMinutes: 0 }))).rejects.toThrow('timeoutMinutes: expected a positive number')
      await expect(approvals.submit(submission({ argsJson: '[1]' }))).rejects.toThrow('argsJson: expected the JSON text of an object')
    })
    const { id } = await stub.submit(submission())
    expect(await stub.resolve(id, 'approve', rae)).toMatchObject({ ok: false, reason: 'not-allowed' })
    expect(await stub.resolve(id, 'cancel', max)).toMatchObject({ ok: false, reason: 'not-allowed' })
    expect(await stub.resolve('nope', 'approve', max)).toEqual({ ok: false, reason: 'not-found' })
  })

  it('a request without approver roles waits for an admin: no role holder may approve it', async () => {
    const stub = approvalsObject()
    const { id } = await stub.submit(submission({ approvers: [] }))
    expect(await stub.resolve(id, 'approve', max)).toMatchObject({ ok: false, reason: 'not-allowed' })
    expect(await stub.resolve(id, 'approve', root)).toMatchObject({ ok: true, request: { status: 'approved' } })
  })

  it('two approvers at once: exactly one wins, the tool runs once as the requester', async () => {
    const stub = approvalsObject()
    const { id } = await stub.submit(submission())
    const outcomes = await Promise.all([stub.resolve(id, 'approve', max), stub.resolve(id, 'approve', flo)])
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1)
    expect(outcomes.filter((outcome) => !outcome.ok && outcome.reason === 'not-pending')).toHaveLength(1)
    const winner = outcomes.find((outcome) => outcome.ok)!.request
    const request = await settled(stub, id, (candidate) => candidate.result !== null)
    expect(request).toMatchObject({ status: 'approved', approver: winner.approver })
    expect(request.result).toContain('word')
    // Repeating one's own action is answered as done; the other action is refused.
    expect(await stub.resolve(id, 'approve', winner.approver === 'max' ? max : flo)).toMatchObject({ ok: true })
    expect(await stub.resolve(id, 'cancel', rae)).toMatchObject({ ok: false, reason: 'not-pending' })
    expect(await stub.counts(rae)).toEqual({ approvalRequestCount: 0, pendingApprovalCount: 0 })
  })

  it('reject and cancel are final and run nothing', async () => {
    const stub = approvalsObject()
    const rejected = await stub.submit(submission())
    expect(await stub.resolve(rejected.id, 'reject', flo)).toMatchObject({ ok: true, request: { status: 'rejected', approver: 'flo' } })
    const cancelled = await stub.submit(submission())
    expect(await stub.resolve(cancelled.id, 'cancel', rae)).toMatchObject({ ok: true, request: { status: 'cancelled', approver: null } })
    expect(await stub.resolve(cancelled.id, 'approve', max)).toMatchObject({ ok: false, reason: 'not-pending' })
    expect((await stub.request(rejected.id))?.result).toBeNull()
    expect(await stub.mine('rae')).toEqual([])
  })

  it('expires a pending request when the alarm fires after timeoutMinutes', async () => {
    const stub = approvalsObject()
    const { id, expiresAt } = await stub.submit(submission({ timeoutMinutes: 0.0005 }))
    while (Date.now() <= expiresAt) await new Promise((resolve) => setTimeout(resolve, 10))
    await runDurableObjectAlarm(stub)
    expect(await settled(stub, id, (candidate) => candidate.status === 'expired')).toMatchObject({ status: 'expired', result: null })
    expect(await stub.actionable(max)).toEqual([])
  })

  it('the directory names the approvers: users holding an approver role, and admins, with all their connections', async () => {
    const role = `approver-${crypto.randomUUID()}`
    const people = directory(env as unknown as WorkerEnv)
    const [phone, laptop, other, adminPhone] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]
    const approver = `ann-${role}`
    try {
      await people.signIn(phone, { identity: approver, roles: [role], admin: false }, 1)
      await people.signIn(laptop, { identity: approver, roles: [role], admin: false }, 2)
      await people.signIn(other, { identity: `bob-${role}`, roles: ['finance'], admin: false }, 3)
      await people.signIn(adminPhone, { identity: `root-${role}`, roles: [], admin: true }, 4)
      const holders = await people.holders([role])
      expect(holders.find((user) => user.identity === approver)).toEqual({
        identity: approver,
        roles: [role],
        admin: false,
        connectionIds: [phone, laptop],
      })
      expect(holders.some((user) => user.identity === `root-${role}`)).toBe(true)
      expect(holders.some((user) => user.identity === `bob-${role}`)).toBe(false)
    } finally {
      // Every test file of this project sees this directory: an admin left in it would be sent
      // every approval notice, on a conversation that never began (which refuses it).
      for (const connectionId of [phone, laptop, other, adminPhone]) await people.signOut(connectionId)
    }
  })
})
