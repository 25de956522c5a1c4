/**
 * Tool approvals end to end, every part real but the model: agent-node (which also issues the
 * role credentials), the worker in workerd joined by the tunnel, Credo wallet peers over
 * WebSocket on loopback, the scripted model (which asks for a tool call on "pay …" / "fast …")
 * and an HTTP tool server counting its calls. The worker runs its test entry, whose only
 * difference here is that the pack's HTTP tools are governed by the role-based `toolAccess` in
 * TEST_TOOL_ACCESS (as an MCP server's tools are by the server's): `send_money` and `send_fast`
 * for `finance`, each needing an approval by a `manager` (`send_fast` expires after 0.02 minutes).
 *
 * Users: Rae (finance, the requester), Max and Flo (managers, the approvers), Sam (finance and
 * manager: self-approval). Each authenticates with a credential carrying its roles.
 */
import '../../agent-node/src/anoncreds-registry/register.ts'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  QuestionAnswerEventTypes,
  QuestionAnswerRole,
  QuestionAnswerState,
  type QuestionAnswerRecord,
  type QuestionAnswerStateChangedEvent,
} from '@credo-ts/question-answer'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { restartWorker, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { adminCall, authenticateFromMenu, issueCredential } from '../support/credential-auth.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

const WORKER_ENTRY = 'edge-worker/test/entry/index.ts'
const TOOL_ACCESS = {
  default: 'none',
  roles: { finance: ['send_money', 'send_fast'] },
  approval: [
    { tools: ['send_money'], approvers: ['manager'], timeoutMinutes: 60 },
    { tools: ['send_fast'], approvers: ['manager'], timeoutMinutes: 0.02 },
  ],
}

function writePack(dir: string, toolOrigin: string): void {
  writeFileSync(
    join(dir, 'agent-pack.yaml'),
    `
metadata: { id: approvals-e2e, defaultLanguage: en }
llm: { provider: compat }
flows:
  welcome: { enabled: true }
  authentication: { enabled: true, required: true, rolesAttribute: roles }
  menu:
    items:
      - { id: login, labelKey: CREDENTIAL, action: authenticate, visibleWhen: unauthenticated }
      - { id: my-requests, labelKey: MY_APPROVAL_REQUESTS, action: my-approval-requests, visibleWhen: hasApprovalRequests, badge: approvalRequestCount }
      - { id: approvals, labelKey: PENDING_APPROVALS, action: pending-approvals, visibleWhen: hasPendingApprovals, badge: pendingApprovalCount }
      - { id: logout, labelKey: LOGOUT, action: logout, visibleWhen: authenticated }
tools:
  dynamicConfig:
    - { name: send_money, description: Sends money, endpoint: "${toolOrigin}/send?q={query}", requiresAuth: true }
    - { name: send_fast, description: Sends money fast, endpoint: "${toolOrigin}/fast?q={query}", requiresAuth: true }
`,
  )
}

/** The HTTP tool: answers `sent <q>` and counts the calls per query. */
async function startToolServer(): Promise<{ origin: string; calls: Map<string, number>; server: Server }> {
  const calls = new Map<string, number>()
  const server = createServer((request, response) => {
    const q = new URL(request.url ?? '/', 'http://localhost').searchParams.get('q') ?? ''
    calls.set(q, (calls.get(q) ?? 0) + 1)
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.end(`sent ${q}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server }
}

/** A user: its wallet and its one authenticated connection. */
interface User {
  name: string
  wallet: WalletPeer
  connectionId: string
}

/** Resolves with the next question (menu-display) `user` receives; subscribe before causing it. */
function nextQuestion(user: User, timeoutMs = 30_000): Promise<QuestionAnswerRecord> {
  return new Promise((resolve, reject) => {
    const events = user.wallet.agent.events
    const listener = ({ payload }: QuestionAnswerStateChangedEvent) => {
      const record = payload.questionAnswerRecord
      if (record.connectionId !== user.connectionId || record.role !== QuestionAnswerRole.Responder) return
      if (record.state !== QuestionAnswerState.QuestionReceived) return
      clearTimeout(timer)
      events.off(QuestionAnswerEventTypes.QuestionAnswerStateChanged, listener)
      resolve(record)
    }
    const timer = setTimeout(() => {
      events.off(QuestionAnswerEventTypes.QuestionAnswerStateChanged, listener)
      reject(new Error(`${user.name}: no question within ${timeoutMs} ms`))
    }, timeoutMs)
    events.on(QuestionAnswerEventTypes.QuestionAnswerStateChanged, listener)
  })
}

/** Resolves with the next text `user` receives that `matches`; subscribe before causing it. */
const nextText = (user: User, matches: RegExp | string | readonly string[], timeoutMs = 30_000) =>
  user.wallet
    .nextText(
      (message) =>
        message.connectionId === user.connectionId &&
        (typeof matches === 'string'
          ? message.content === matches
          : matches instanceof RegExp
            ? matches.test(message.content)
            : matches.includes(message.content)),
      timeoutMs,
    )
    .then((message) => message.content)

/** Resolves with `user`'s menu (`id:title` per option) once one satisfying `matches` has arrived. */
const menuOf = (user: User, matches: (options: string[]) => boolean) =>
  user.wallet
    .contextualMenu(user.connectionId, (record) => matches(options(record.menu?.options)), 30_000)
    .then((record) => options(record.menu?.options))
const options = (list?: { name: string; title: string }[]) => (list ?? []).map((option) => `${option.name}:${option.title}`)

/** Answers `question` with the option whose text starts with `prefix`. */
async function choose(user: User, question: QuestionAnswerRecord, prefix: string): Promise<void> {
  const response = question.validResponses.find((candidate) => candidate.text.startsWith(prefix))
  if (!response) throw new Error(`${user.name}: no option '${prefix}…' in ${JSON.stringify(question.validResponses)}`)
  await user.wallet.answerMenu(question.id, response.text)
}

describe('tool approvals: request, approve, reject, cancel, expire, self-approval, concurrent approvals', () => {
  let llm: ScriptedLlm
  let stack: LocalStack
  let tool: Awaited<ReturnType<typeof startToolServer>>
  let packDir: string
  let dataDir: string
  let credentialDefinitionId: string
  let workerVars: Record<string, string>
  const wallets: WalletPeer[] = []
  let rae: User
  let max: User
  let flo: User
  let sam: User
  const admin = <T>(path: string, body?: unknown) => adminCall<T>(stack.agent.adminUrl, path, body)

  /** A wallet holding a credential with `name` and `roles`, connected and authenticated. */
  async function userWith(name: string, roles: string): Promise<User> {
    const wallet = await WalletPeer.create({ label: name, logger: createLogger('error', 'wallet') })
    wallets.push(wallet)
    await issueCredential(stack.agent.adminUrl, wallet, credentialDefinitionId, { name, roles })
    const { url } = await admin<{ url: string }>('/v1/invitation')
    const received: string[] = []
    const stop = wallet.onText((message) => received.push(message.connectionId))
    const connectionId = await wallet.connect(url)
    await wallet.contextualMenu(connectionId)
    // the greeting and the authentication prompt
    await vi.waitFor(() => expect(received.filter((id) => id === connectionId).length).toBeGreaterThanOrEqual(2), {
      timeout: 20_000,
      interval: 20,
    })
    stop()
    expect(await authenticateFromMenu(wallet, connectionId, 'login')).toBe(`You are now authenticated as ${name}.`)
    return { name, wallet, connectionId }
  }

  /** `user` asks the model to "pay <what>"; resolves with the confirmation question once the model's answer has arrived. */
  async function requestPayment(user: User, what: string, verb = 'pay'): Promise<QuestionAnswerRecord> {
    const question = nextQuestion(user)
    const answer = nextText(user, /^tool said: not run yet: this call needs an approval/)
    await user.wallet.sendText(user.connectionId, `${verb} ${what}`)
    await answer
    return question
  }

  /** `user` confirms `question` with Yes; resolves once told the request is submitted. */
  async function confirm(user: User, question: QuestionAnswerRecord): Promise<void> {
    const submitted = nextText(user, "Your request has been submitted. You'll be notified when it's processed.")
    await choose(user, question, 'Yes')
    await submitted
  }

  /** `user` opens `menuOption` and picks the listed request whose text contains `what`; resolves with the next question. */
  async function openRequest(user: User, menuOption: string, what: string): Promise<QuestionAnswerRecord> {
    await menuOf(user, (menu) => menu.some((option) => option.startsWith(`${menuOption}:`)))
    const list = nextQuestion(user)
    await user.wallet.performContextualMenuOption(user.connectionId, menuOption)
    const listed = await list
    const item = listed.validResponses.find((candidate) => candidate.text.includes(what))
    if (!item) throw new Error(`${user.name}: '${what}' not listed in ${JSON.stringify(listed.validResponses)}`)
    const next = nextQuestion(user)
    await user.wallet.answerMenu(listed.id, item.text)
    return next
  }

  const details = (what: string, name = 'send_money') => `${name} {"query":"${what}"}`

  beforeAll(async () => {
    llm = await startScriptedLlm({
      reply: (messages) => {
        const last = messages.at(-1)
        if (last?.role === 'tool') return `tool said: ${String(last.content)}`
        const text = String(messages.findLast((message) => message.role === 'user')?.content ?? '')
        const call = /^(pay|fast) (.+)$/.exec(text)
        if (call) return { toolCalls: [{ name: call[1] === 'pay' ? 'send_money' : 'send_fast', arguments: { query: call[2] } }] }
        return `echo: ${text}`
      },
    })
    tool = await startToolServer()
    packDir = mkdtempSync(join(tmpdir(), 'parley-approvals-pack-'))
    writePack(packDir, tool.origin)
    dataDir = mkdtempSync(join(tmpdir(), 'parley-approvals-e2e-'))
    workerVars = {
      COMPAT_BASE_URL: llm.url,
      COMPAT_API_KEY: 'test-key',
      COMPAT_MODEL: 'scripted-model',
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
      TEST_TOOL_ACCESS: JSON.stringify(TOOL_ACCESS),
    }
    stack = await startLocalStack({
      workerVars,
      workerEntry: WORKER_ENTRY,
      agentPackPath: packDir,
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn' },
    })
    credentialDefinitionId = (
      await admin<{ id: string }>('/v1/credential-types', { name: 'parley-staff', version: '1.0', attributes: ['name', 'roles'] })
    ).id
    workerVars = { ...workerVars, CREDENTIAL_DEFINITION_ID: credentialDefinitionId }
    await restartWorker(stack, { entry: WORKER_ENTRY, agentPackPath: packDir, vars: workerVars })
    rae = await userWith('Rae', 'finance')
    max = await userWith('Max', 'manager')
    flo = await userWith('Flo', 'manager')
    sam = await userWith('Sam', 'finance, manager')
  }, 400_000)

  afterAll(async () => {
    for (const wallet of wallets) await wallet.stop()
    await stack?.stop()
    await llm?.close()
    await new Promise((resolve) => tool?.server.close(resolve))
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('the model sees only the tools the user may call: finance sees both, a manager none', async () => {
    const before = llm.requests.length
    const reply = nextText(max, 'echo: hello')
    await max.wallet.sendText(max.connectionId, 'hello')
    await reply
    expect(llm.requests.slice(before).at(-1)!.tools ?? []).toEqual([])
    const raeReply = nextText(rae, 'echo: hi')
    await rae.wallet.sendText(rae.connectionId, 'hi')
    await raeReply
    expect(llm.requests.at(-1)!.tools?.map((candidate) => candidate.function.name)).toEqual(['send_money', 'send_fast'])
  }, 120_000)

  it('request → approve (after a worker restart) → the result goes to the requester; badges and notices for all', async () => {
    const what = '100 EUR to John'
    const question = await requestPayment(rae, what)
    expect(question.questionText).toBe(`${details(what)} requires approval from a user with the role manager. Submit an approval request?`)
    const raeMenu = menuOf(rae, (menu) => menu.includes('my-requests:Approval requests (1)'))
    const maxNotice = nextText(max, `New approval request from Rae: ${details(what)}.`)
    const floNotice = nextText(flo, `New approval request from Rae: ${details(what)}.`)
    const maxMenu = menuOf(max, (menu) => menu.includes('approvals:Pending approvals (1)'))
    await confirm(rae, question)
    await Promise.all([raeMenu, maxNotice, floNotice, maxMenu])
    expect(tool.calls.get(what)).toBeUndefined()

    // Requests persist: the worker restarts on its storage with the request pending.
    await restartWorker(stack, { entry: WORKER_ENTRY, agentPackPath: packDir, vars: workerVars })

    const review = await openRequest(max, 'approvals', what)
    expect(review.questionText).toMatch(/^Request from Rae, made \d{4}-\d\d-\d\d \d\d:\d\d UTC: /)
    expect(review.questionText.endsWith(`: ${details(what)}. Approve or reject it?`)).toBe(true)
    const approved = nextText(rae, `Your request was approved by Max: ${details(what)}.`)
    const result = nextText(rae, `Result of send_money: sent ${what}`)
    const floTold = nextText(flo, `The request from Rae (${details(what)}) was approved by Max.`)
    const done = nextText(max, `You approved the request from Rae: ${details(what)}.`)
    const raeMenuAfter = menuOf(rae, (menu) => !menu.some((option) => option.startsWith('my-requests:')))
    const maxMenuAfter = menuOf(max, (menu) => !menu.some((option) => option.startsWith('approvals:')))
    await choose(max, review, 'Approve')
    await Promise.all([approved, result, floTold, done, raeMenuAfter, maxMenuAfter])
    expect(tool.calls.get(what)).toBe(1)
  }, 240_000)

  it('reject: the requester is told, the tool never runs', async () => {
    const what = '5 EUR to Zed'
    await confirm(rae, await requestPayment(rae, what))
    const review = await openRequest(flo, 'approvals', what)
    const rejected = nextText(rae, `Your request was rejected by Flo: ${details(what)}.`)
    const done = nextText(flo, `You rejected the request from Rae: ${details(what)}.`)
    await choose(flo, review, 'Reject')
    await Promise.all([rejected, done])
    expect(tool.calls.get(what)).toBeUndefined()
  }, 120_000)

  it('No at the confirmation submits nothing', async () => {
    const what = '1 EUR to Nobody'
    const question = await requestPayment(rae, what)
    const dropped = nextText(rae, 'Request cancelled.')
    await choose(rae, question, 'No')
    await dropped
    expect(await menuOf(rae, () => true)).toEqual(['logout:Log out'])
    expect(await menuOf(max, () => true)).toEqual(['logout:Log out'])
  }, 120_000)

  it('cancel: the requester cancels from "my approval requests"; approvers are told', async () => {
    const what = '7 EUR to Kim'
    await confirm(rae, await requestPayment(rae, what))
    const cancelQuestion = await openRequest(rae, 'my-requests', what)
    expect(cancelQuestion.questionText).toBe(`Cancel your request (${details(what)})?`)
    const done = nextText(rae, `Your request was cancelled: ${details(what)}.`)
    const maxTold = nextText(max, `The request from Rae (${details(what)}) was cancelled by the requester.`)
    const floTold = nextText(flo, `The request from Rae (${details(what)}) was cancelled by the requester.`)
    await choose(rae, cancelQuestion, 'Cancel the request')
    await Promise.all([done, maxTold, floTold])
    expect(tool.calls.get(what)).toBeUndefined()
  }, 120_000)

  it('expire: a request left pending past timeoutMinutes expires by the alarm', async () => {
    const what = '9 EUR to Lou'
    const question = await requestPayment(rae, what, 'fast')
    const expired = nextText(rae, `Your request expired: ${details(what, 'send_fast')}.`, 60_000)
    const maxMenuBack = menuOf(max, (menu) => !menu.some((option) => option.startsWith('approvals:')))
    await confirm(rae, question)
    await Promise.all([expired, maxMenuBack])
    expect(tool.calls.get(what)).toBeUndefined()
  }, 120_000)

  it('self-approval: a user holding the tool role and an approver role runs the tool at once', async () => {
    const what = '3 EUR to Sam'
    const reply = nextText(sam, `tool said: sent ${what}`)
    await sam.wallet.sendText(sam.connectionId, `pay ${what}`)
    await reply
    expect(tool.calls.get(what)).toBe(1)
  }, 120_000)

  it('two approvers at once: exactly one approval wins and the tool runs once', async () => {
    const what = '50 EUR to Ann'
    await confirm(rae, await requestPayment(rae, what))
    const [maxReview, floReview] = await Promise.all([openRequest(max, 'approvals', what), openRequest(flo, 'approvals', what)])
    const result = nextText(rae, `Result of send_money: sent ${what}`)
    const outcome = (user: User) =>
      nextText(user, [`You approved the request from Rae: ${details(what)}.`, 'This request is no longer pending.'])
    const outcomes = Promise.all([outcome(max), outcome(flo)])
    await Promise.all([choose(max, maxReview, 'Approve'), choose(flo, floReview, 'Approve')])
    const said = await outcomes
    expect(said.filter((text) => text.startsWith('You approved')).length).toBe(1)
    expect(said.filter((text) => text === 'This request is no longer pending.').length).toBe(1)
    await result
    expect(tool.calls.get(what)).toBe(1)
  }, 120_000)
})
