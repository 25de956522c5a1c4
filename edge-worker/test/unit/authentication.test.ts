/** The authentication and menu flows driven event by event as the conversation runs them (flows/step.ts). */
import { resolveAgentPack, type AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import type { SendMessageBody, SubmittedProofItem } from '@parley/shared/messages'
import { describe, expect, it } from 'vitest'
import { handleEvent } from '../../src/flows/step.ts'
import { createLogger } from '../../src/logging/index.ts'
import { adminIdentities } from '../../src/flows/authentication/roles.ts'
import { newSession, principalOf, type Session } from '../../src/session/index.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const pack = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config
const envelope = { id: 'x', connectionId: CONNECTION, timestamp: 0, threadId: null }
const completed: AgentEvent = {
  type: 'connection-state-updated',
  connectionId: CONNECTION,
  invitationId: crypto.randomUUID(),
  state: 'completed',
}
const text = (content: string): AgentEvent => ({ type: 'message-received', message: { ...envelope, type: 'text', content } })
const select = (selectionId: string): AgentEvent => ({
  type: 'message-received',
  message: { ...envelope, type: 'contextual-menu-select', selectionId },
})
const media = (mimeType: string): AgentEvent => ({
  type: 'message-received',
  message: { ...envelope, type: 'media', items: [{ id: 'i', uri: 'https://example.org/x', mimeType }] },
})
const profile = (preferredLanguage: string): AgentEvent => ({
  type: 'message-received',
  message: { ...envelope, type: 'profile', preferredLanguage },
})
const submit = (threadId: string, item: Partial<SubmittedProofItem>): AgentEvent => ({
  type: 'message-received',
  message: {
    ...envelope,
    threadId,
    type: 'identity-proof-submit',
    submittedProofItems: [{ id: 'credential', type: 'verifiable-credential', proofExchangeId: 'p', verified: false, ...item }],
  },
})

/** A conversation in memory: events in, messages out (no model: chat answers LLM_NOT_CONFIGURED). */
class Harness {
  session: Session = newSession()
  constructor(private readonly config: AgentPackConfig) {}
  async send(event: AgentEvent): Promise<SendMessageBody[]> {
    const step = await handleEvent({
      event,
      eventId: 'e',
      connectionId: CONNECTION,
      session: this.session,
      config: this.config,
      now: 0,
      log: createLogger('test', 'error'),
      chat: { tools: [], fetch, history: () => [] },
    })
    this.session = step.session
    return step.commands.flatMap((command) => (command.name === 'send-message' ? [command.message] : []))
  }
  /** The message id of the proof request in `sent`. */
  static proofId(sent: SendMessageBody[]): string {
    const request = sent.find((message) => message.type === 'identity-proof-request')
    if (!request?.id) throw new Error(`no identity-proof-request in ${JSON.stringify(sent)}`)
    return request.id
  }
}
const texts = (sent: SendMessageBody[]) => sent.flatMap((message) => (message.type === 'text' ? [message.content] : []))
const menus = (sent: SendMessageBody[]) =>
  sent.flatMap((message) => (message.type === 'contextual-menu-update' ? [message.options.map((option) => option.id)] : []))

const AUTH = `
flows:
  welcome: { enabled: true }
  authentication:
    enabled: true
    required: true
    credentialDefinitionId: "did:example:cred-def"
    issuerServiceDid: "did:web:issuer.example.org"
    rolesAttribute: roles
    adminUsers: [Root]
speechToText: { requireAuth: true }
vision: { requireAuth: true }
`

describe('authentication', () => {
  it('greets a guest with the prompt and the menu; blocks text; authenticates from the menu; logs out', async () => {
    const h = new Harness(pack(AUTH))
    const first = await h.send(completed)
    expect(texts(first)).toEqual([
      'Hello there! How can I help you today?',
      'Please authenticate first: choose "Authenticate" in the menu and present your credential.',
    ])
    expect(menus(first)).toEqual([['authenticate']])
    expect(texts(await h.send(text('hello')))).toEqual([
      'Please authenticate first: choose "Authenticate" in the menu and present your credential.',
    ])

    const asked = await h.send(select('authenticate'))
    expect(asked).toEqual([
      {
        connectionId: CONNECTION,
        id: expect.any(String),
        type: 'identity-proof-request',
        requestedProofItems: [
          {
            id: 'credential',
            type: 'verifiable-credential',
            credentialDefinitionId: 'did:example:cred-def',
            attributes: ['name', 'roles'],
          },
        ],
      },
    ])
    const id = Harness.proofId(asked)
    expect(await h.send(submit('another-thread', { verified: true, claims: [{ name: 'name', value: 'Mallory' }] }))).toEqual([])
    expect(h.session.identity).toBeUndefined()

    const done = await h.send(
      submit(id, {
        verified: true,
        claims: [
          { name: 'name', value: 'Ana' },
          { name: 'roles', value: '["editor","approver"]' },
        ],
      }),
    )
    expect(done[0]).toMatchObject({ type: 'identity-proof-result', threadId: id, proofItemResults: [{ id: 'credential', code: 'ok' }] })
    expect(texts(done)).toEqual(['You are now authenticated as Ana.'])
    expect(menus(done)).toEqual([['logout']])
    expect(h.session).toMatchObject({ identity: 'Ana', roles: ['editor', 'approver'] })
    expect(texts(await h.send(text('hello')))).toEqual([expect.stringMatching(/No language model/)])

    const out = await h.send(select('logout'))
    expect(texts(out)).toEqual(['You are logged out.'])
    expect(menus(out)).toEqual([['authenticate']])
    expect(h.session.identity).toBeUndefined()
    expect(h.session.roles).toEqual([])
  })

  it('a proof not presented: invitation to the issuer, still a guest; a failed one says so', async () => {
    const h = new Harness(pack(AUTH))
    await h.send(completed)
    const refused = await h.send(
      submit(Harness.proofId(await h.send(select('authenticate'))), { errorCode: 'refused', reason: 'declined' }),
    )
    expect(refused).toEqual([
      { connectionId: CONNECTION, type: 'text', content: expect.stringMatching(/^The credential was not presented/) },
      { connectionId: CONNECTION, type: 'invitation', did: 'did:web:issuer.example.org' },
    ])
    const failed = await h.send(submit(Harness.proofId(await h.send(select('authenticate'))), { errorCode: 'verification-error' }))
    expect(texts(failed)).toEqual([expect.stringMatching(/^Authentication failed/)])
    const noIdentity = await h.send(
      submit(Harness.proofId(await h.send(select('authenticate'))), { verified: true, claims: [{ name: 'roles', value: 'x' }] }),
    )
    expect(noIdentity[0]).toMatchObject({ type: 'identity-proof-result', proofItemResults: [{ code: 'error' }] })
    expect(texts(noIdentity)).toEqual([expect.stringMatching(/^Authentication failed/)])
    expect(h.session.identity).toBeUndefined()
    expect(menus([...refused, ...failed, ...noIdentity])).toEqual([])
  })

  it("gates a guest's voice notes and images in the user's language", async () => {
    const h = new Harness(pack(AUTH))
    await h.send(completed)
    expect(texts(await h.send(media('audio/ogg')))).toEqual([
      'Voice messages require authentication. Please authenticate first to use this feature.',
    ])
    await h.send(profile('es'))
    expect(texts(await h.send(media('image/png')))).toEqual([
      'Las imágenes requieren autenticación. Por favor, autentícate primero para usar esta función.',
    ])
  })

  it('without required, a guest chats; the gates are per medium', async () => {
    const h = new Harness(pack('flows: { authentication: { enabled: true, credentialDefinitionId: c } }\nvision: { requireAuth: true }'))
    await h.send(completed)
    expect(texts(await h.send(text('hi')))).toEqual([expect.stringMatching(/No language model/)])
    expect(texts(await h.send(media('audio/ogg')))).toEqual([])
    expect(texts(await h.send(media('image/jpeg')))).toEqual([
      'Images require authentication. Please authenticate first to use this feature.',
    ])
  })

  it('authenticate where authentication is off, or twice; an admin by adminUsers', async () => {
    const off = new Harness(pack('flows: { menu: { items: [{ id: login, label: Login, action: authenticate }] } }'))
    await off.send(completed)
    expect(texts(await off.send(select('login')))).toEqual(['Authentication is not available on this service.'])
    const h = new Harness(pack(AUTH))
    await h.send(completed)
    await h.send(
      submit(Harness.proofId(await h.send(select('authenticate'))), { verified: true, claims: [{ name: 'name', value: 'Root' }] }),
    )
    expect(h.session.roles).toEqual(['user'])
    expect(principalOf(h.session, adminIdentities(pack(AUTH).flows.authentication)).admin).toBe(true)
    expect(texts(await h.send(select('authenticate')))).toEqual([])
  })

  it('a connection that ends logs its user out, with no message and no menu', async () => {
    const h = new Harness(pack(AUTH))
    await h.send(completed)
    await h.send(
      submit(Harness.proofId(await h.send(select('authenticate'))), { verified: true, claims: [{ name: 'name', value: 'Ana' }] }),
    )
    expect(h.session.identity).toBe('Ana')
    expect(await h.send({ ...completed, state: 'terminated' })).toEqual([])
    expect(h.session.identity).toBeUndefined()
  })
})
