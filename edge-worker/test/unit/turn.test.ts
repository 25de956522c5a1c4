import { describe, expect, it } from 'vitest'
import type { ChatModel, ModelRequest, ModelReply } from '../../src/llm/types.ts'
import type { Principal } from '../../src/session/index.ts'
import type { Tool } from '../../src/tools/types.ts'
import { runTurn, type TurnInput } from '../../src/turn/index.ts'

/** A model port that answers from a script and records every request. */
function scriptedModel(script: (request: ModelRequest, call: number) => ModelReply): ChatModel & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    label: 'scripted',
    requests,
    async complete(request) {
      requests.push(structuredClone({ ...request, signal: undefined }))
      return script(request, requests.length - 1)
    },
  }
}

const guest: Principal = { roles: [], admin: false }
const member: Principal = { identity: 'alice', roles: [], admin: false }

function lookupTool(execute: Tool['execute'], requiresAuth = false): Tool {
  return {
    name: 'lookup',
    description: 'Looks things up',
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
    policy: { requiresAuth },
    execute,
  }
}

const input = (model: ChatModel, tools: Tool[], extra: Partial<TurnInput> = {}): TurnInput => ({
  model,
  system: 'sys',
  history: [
    { role: 'user', content: 'before' },
    { role: 'assistant', content: 'ok' },
  ],
  user: 'question',
  tools,
  principal: member,
  integrations: { agent: { adminUrl: 'http://agent' } },
  fetch: async () => new Response('unused'),
  ...extra,
})

const callLookup = { text: '', toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { query: 'rain' } }] }

describe('runTurn', () => {
  it('answers a plain turn with one model call, history then the user message', async () => {
    const model = scriptedModel(() => ({ text: 'plain answer', toolCalls: [] }))
    const result = await runTurn(input(model, []))
    expect(result).toEqual({ text: 'plain answer', steps: [], modelCalls: 1 })
    expect(model.requests[0]).toMatchObject({
      system: 'sys',
      tools: [],
      messages: [
        { role: 'user', content: 'before' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'question' },
      ],
    })
  })

  it('runs a tool call and hands its result back to the model', async () => {
    const model = scriptedModel((request, call) =>
      call === 0 ? callLookup : { text: `answer from ${(request.messages.at(-1) as { content: string }).content}`, toolCalls: [] },
    )
    let seen: unknown
    const tool = lookupTool(async (args, context) => {
      seen = { args, integrations: context.integrations, identity: context.principal.identity }
      return 'sunny'
    })
    const result = await runTurn(input(model, [tool]))
    expect(result.text).toBe('answer from sunny')
    expect(result.steps).toEqual([{ call: callLookup.toolCalls[0], result: 'sunny', ok: true }])
    expect(seen).toEqual({ args: { query: 'rain' }, integrations: { agent: { adminUrl: 'http://agent' } }, identity: 'alice' })
    expect(model.requests[0]!.tools).toEqual([{ name: 'lookup', description: 'Looks things up', parameters: tool.parameters }])
    expect(model.requests[1]!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: '', toolCalls: callLookup.toolCalls },
      { role: 'tool', toolCallId: 'call-1', name: 'lookup', content: 'sunny' },
    ])
  })

  it("hands a failing tool's error to the model instead of failing the turn", async () => {
    const model = scriptedModel((_, call) => (call === 0 ? callLookup : { text: 'sorry, the lookup failed', toolCalls: [] }))
    const result = await runTurn(
      input(model, [
        lookupTool(async () => {
          throw new Error('upstream 503')
        }),
      ]),
    )
    expect(result.steps).toEqual([{ call: callLookup.toolCalls[0], result: 'error: upstream 503', ok: false }])
    expect(result.text).toBe('sorry, the lookup failed')
  })

  it('stops a tool call at the per-call time limit', async () => {
    const model = scriptedModel((_, call) => (call === 0 ? callLookup : { text: 'gave up', toolCalls: [] }))
    let aborted = false
    const slow = lookupTool(
      (_, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true
          })
          setTimeout(() => resolve('too late'), 1_000)
        }),
    )
    const result = await runTurn(input(model, [slow], { toolTimeoutMs: 20 }))
    expect(result.steps[0]).toMatchObject({ ok: false, result: 'error: timed out after 20 ms' })
    expect(aborted).toBe(true)
  })

  it('stops offering tools at the step limit, so the model has to answer in text', async () => {
    const model = scriptedModel((request) => (request.tools.length ? callLookup : { text: 'final', toolCalls: [] }))
    const result = await runTurn(input(model, [lookupTool(async () => 'again')], { maxSteps: 2 }))
    expect(result).toMatchObject({ text: 'final', modelCalls: 3 })
    expect(result.steps).toHaveLength(2)
    expect(model.requests.map((request) => request.tools.length)).toEqual([1, 1, 0])
  })

  it('does not show a guest a requiresAuth tool, and denies its call', async () => {
    const model = scriptedModel((_, call) => (call === 0 ? callLookup : { text: 'no access', toolCalls: [] }))
    let ran = false
    const result = await runTurn(
      input(
        model,
        [
          lookupTool(async () => {
            ran = true
            return 'secret'
          }, true),
        ],
        { principal: guest },
      ),
    )
    expect(model.requests[0]!.tools).toEqual([])
    expect(ran).toBe(false)
    expect(result.steps[0]).toMatchObject({ ok: false, result: "error: no tool named 'lookup' is available to this user" })
  })

  it('does not run a call that needs an approval: the model is told, the step carries the approval', async () => {
    let runs = 0
    const tool: Tool = {
      ...lookupTool(async () => {
        runs++
        return 'ran'
      }),
      policy: {
        requiresAuth: true,
        access: { roles: { finance: ['lookup'] }, approval: [{ tools: ['lookup'], approvers: ['manager'], timeoutMinutes: 60 }] },
      },
    }
    const model = scriptedModel((_, call) => (call === 0 ? callLookup : { text: 'asked', toolCalls: [] }))
    const finance: Principal = { identity: 'fay', roles: ['finance'], admin: false }
    const result = await runTurn(input(model, [tool], { principal: finance }))
    expect(runs).toBe(0)
    expect(result.steps).toEqual([
      {
        call: callLookup.toolCalls[0],
        ok: false,
        approval: { approvers: ['manager'], timeoutMinutes: 60 },
        result: expect.stringMatching(/^not run yet: this call needs an approval from a user with the role manager\./),
      },
    ])
    const both: Principal = { identity: 'sam', roles: ['finance', 'manager'], admin: false }
    const selfApproved = await runTurn(
      input(
        scriptedModel((_, call) => (call === 0 ? callLookup : { text: 'done', toolCalls: [] })),
        [tool],
        { principal: both },
      ),
    )
    expect(selfApproved.steps).toMatchObject([{ ok: true, result: 'ran' }])
    expect(runs).toBe(1)
  })
})
