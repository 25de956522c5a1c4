/**
 * Authentication, roles and the contextual menu end to end, every part real but the model:
 * agent-node (which also issues the credential: a credential type and an offer), the worker in
 * workerd joined by the tunnel, Credo wallet peers over WebSocket on loopback, the scripted model.
 * The pack requires authentication, reads roles from `roles`, makes "Admin Ana" an admin, gates
 * voice notes and images, and invites users without the credential to an issuer DID. The worker
 * runs its test entry, whose read-only hook `GET /test-hooks/directory/:identity` shows what the
 * user directory holds.
 */
import '../../agent-node/src/anoncreds-registry/register.ts'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { restartWorker, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { adminCall, authenticateFromMenu, issueCredential } from '../support/credential-auth.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

const ISSUER_DID = 'did:web:issuer.example.org'
const OOB_INVITATION = 'https://didcomm.org/out-of-band/1.1/invitation'
const AUTH_REQUIRED = 'Please authenticate first: choose "Authenticate" in the menu and present your credential.'

function writePack(dir: string): void {
  writeFileSync(
    join(dir, 'agent-pack.yaml'),
    `
metadata: { id: auth-e2e, defaultLanguage: en }
languages:
  en: { greetingMessage: "Hello {userName}!" }
  es:
    greetingMessage: "¡Hola {userName}!"
    strings: { IMAGE_AUTH_REQUIRED: "Para enviar imágenes, primero autentícate con tu credencial." }
llm: { provider: compat }
flows:
  welcome: { enabled: true }
  authentication:
    enabled: true
    required: true
    issuerServiceDid: "${ISSUER_DID}"
    rolesAttribute: roles
    adminUsers: [Admin Ana]
  menu:
    items:
      - { id: login, labelKey: CREDENTIAL, action: authenticate, visibleWhen: unauthenticated }
      - { id: logout, labelKey: LOGOUT, action: logout, visibleWhen: authenticated }
      - { id: help, label: Help }
speechToText: { requireAuth: true }
vision: { requireAuth: true }
tools:
  dynamicConfig:
    - { name: payroll, description: Salary records, endpoint: "http://127.0.0.1:9/payroll?q={query}", requiresAuth: true }
`,
  )
}

describe('authentication, roles and the contextual menu', () => {
  let llm: ScriptedLlm
  let stack: LocalStack
  let packDir: string
  let dataDir: string
  let credentialDefinitionId: string
  const wallets: WalletPeer[] = []
  const WORKER_ENTRY = 'edge-worker/test/entry/index.ts'
  /** What the user directory holds for `identity`. */
  const directoryUser = async (identity: string) => {
    const response = await fetch(`${stack.worker.url}/test-hooks/directory/${encodeURIComponent(identity)}`, {
      headers: { authorization: `Bearer ${stack.tunnelSecret}` },
    })
    if (!response.ok) throw new Error(`directory hook: ${response.status}`)
    return (await response.json()) as { identity: string; roles: string[]; admin: boolean; connectionIds: string[] } | null
  }
  const admin = <T>(path: string, body?: unknown) => adminCall<T>(stack.agent.adminUrl, path, body)

  /** A wallet holding a credential with `claims` (none: no credential), connected through a fresh invitation. */
  async function walletWith(
    label: string,
    claims?: Record<string, string>,
  ): Promise<{ wallet: WalletPeer; connectionId: string; greeting: string[]; menu: string[] }> {
    const wallet = await WalletPeer.create({ label, logger: createLogger('error', 'wallet') })
    wallets.push(wallet)
    if (claims) await issueCredential(stack.agent.adminUrl, wallet, credentialDefinitionId, claims)
    const { connectionId, greeting, menu } = await connect(wallet)
    return { wallet, connectionId, greeting, menu }
  }

  /** Connects `wallet` once more; resolves with the greeting texts and the first menu. */
  async function connect(wallet: WalletPeer) {
    const { url } = await admin<{ url: string }>('/v1/invitation')
    const received: { connectionId: string; content: string }[] = []
    const stop = wallet.onText((message) => received.push(message))
    const connectionId = await wallet.connect(url)
    const menu = await wallet.contextualMenu(connectionId)
    // The wallet's other connections (the credential offer's) are greeted too: keep this one's.
    const texts = () => received.filter((message) => message.connectionId === connectionId).map((message) => message.content)
    await vi.waitFor(() => expect(texts().length).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 20 })
    stop()
    return { connectionId, greeting: texts(), menu: options(menu.menu?.options) }
  }

  const options = (list?: { name: string; title: string }[]) => (list ?? []).map((option) => `${option.name}:${option.title}`)
  const nextTextOn = (wallet: WalletPeer, connectionId: string) => wallet.nextText((message) => message.connectionId === connectionId)
  /** Sends `text` and resolves with the reply. */
  async function say(wallet: WalletPeer, connectionId: string, text: string): Promise<string> {
    const reply = nextTextOn(wallet, connectionId)
    await wallet.sendText(connectionId, text)
    return (await reply).content
  }
  /** Authenticates from the menu's `login` item; resolves with the reply. */
  const authenticate = (wallet: WalletPeer, connectionId: string, answer?: (id: string) => Promise<unknown>) =>
    authenticateFromMenu(wallet, connectionId, 'login', answer)
  const menuAfter = (wallet: WalletPeer, connectionId: string, first: string) =>
    wallet.contextualMenu(connectionId, (record) => record.menu?.options[0]?.name === first).then((record) => options(record.menu?.options))

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${String(messages.at(-1)?.content)}` })
    packDir = mkdtempSync(join(tmpdir(), 'parley-auth-pack-'))
    writePack(packDir)
    dataDir = mkdtempSync(join(tmpdir(), 'parley-auth-e2e-'))
    const workerVars = { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' }
    stack = await startLocalStack({
      workerVars,
      workerEntry: WORKER_ENTRY,
      agentPackPath: packDir,
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn' },
    })
    // Parley issues the credential itself; the worker learns its definition through CREDENTIAL_DEFINITION_ID.
    credentialDefinitionId = (
      await admin<{ id: string }>('/v1/credential-types', { name: 'parley-member', version: '1.0', attributes: ['name', 'roles'] })
    ).id
    await restartWorker(stack, {
      entry: WORKER_ENTRY,
      agentPackPath: packDir,
      vars: { ...workerVars, CREDENTIAL_DEFINITION_ID: credentialDefinitionId },
    })
  }, 240_000)

  afterAll(async () => {
    for (const wallet of wallets) await wallet.stop()
    await stack?.stop()
    await llm?.close()
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('an admin (JSON roles): greeting and prompt, blocked chat, authenticate from the menu, menu changes, logout', async () => {
    const { wallet, connectionId, greeting, menu } = await walletWith('ana', { name: 'Admin Ana', roles: '["editor","approver"]' })
    expect(greeting).toEqual(['Hello there!', AUTH_REQUIRED])
    expect(menu).toEqual(['login:Authenticate', 'help:Help'])

    const blocked = `guest question ${crypto.randomUUID()}`
    expect(await say(wallet, connectionId, blocked)).toBe(AUTH_REQUIRED)
    expect(llm.requests.filter((request) => JSON.stringify(request.messages).includes(blocked))).toEqual([])

    const menuChanged = menuAfter(wallet, connectionId, 'logout')
    expect(await authenticate(wallet, connectionId)).toBe('You are now authenticated as Admin Ana.')
    expect(await menuChanged).toEqual(['logout:Log out', 'help:Help'])
    expect(await directoryUser('Admin Ana')).toEqual({
      identity: 'Admin Ana',
      roles: ['editor', 'approver'],
      admin: true,
      connectionIds: [expect.any(String)],
    })

    expect(await say(wallet, connectionId, 'now may I?')).toBe('echo: now may I?')
    expect(llm.requests.at(-1)!.tools?.map((tool) => tool.function.name)).toEqual(['payroll'])

    const menuBack = menuAfter(wallet, connectionId, 'login')
    const out = nextTextOn(wallet, connectionId)
    await wallet.performContextualMenuOption(connectionId, 'logout')
    expect((await out).content).toBe('You are logged out.')
    expect(await menuBack).toEqual(['login:Authenticate', 'help:Help'])
    expect(await directoryUser('Admin Ana')).toBeNull()
    expect(await say(wallet, connectionId, 'still there?')).toBe(AUTH_REQUIRED)

    // Two connections of one identity: one user with two connections in the directory.
    expect(await authenticate(wallet, connectionId)).toBe('You are now authenticated as Admin Ana.')
    const second = await connect(wallet)
    expect(await authenticate(wallet, second.connectionId)).toBe('You are now authenticated as Admin Ana.')
    expect((await directoryUser('Admin Ana'))?.connectionIds).toHaveLength(2)
  }, 240_000)

  it('a user with CSV roles, not an admin; a refused proof first leaves them a guest', async () => {
    const { wallet, connectionId } = await walletWith('bo', { name: 'Bo', roles: 'editor, viewer' })
    const invitation = wallet.nextDidComm(OOB_INVITATION)
    const refused = await authenticate(wallet, connectionId, (id) =>
      wallet.agent.modules.didcomm.proofs.declineRequest({
        proofExchangeRecordId: id,
        sendProblemReport: true,
        problemReportDescription: 'the user declined',
      }),
    )
    expect(refused).toMatch(/^The credential was not presented, so you are still a guest/)
    await invitation
    expect(await say(wallet, connectionId, 'hello?')).toBe(AUTH_REQUIRED)

    expect(await authenticate(wallet, connectionId)).toBe('You are now authenticated as Bo.')
    expect(await directoryUser('Bo')).toEqual({
      identity: 'Bo',
      roles: ['editor', 'viewer'],
      admin: false,
      connectionIds: [expect.any(String)],
    })
  }, 240_000)

  it('roles as one plain name, and the default role when the attribute is empty', async () => {
    const cy = await walletWith('cy', { name: 'Cy', roles: 'viewer' })
    expect(await authenticate(cy.wallet, cy.connectionId)).toBe('You are now authenticated as Cy.')
    expect(await directoryUser('Cy')).toMatchObject({ roles: ['viewer'], admin: false })
    const di = await walletWith('di', { name: 'Di', roles: '' })
    expect(await authenticate(di.wallet, di.connectionId)).toBe('You are now authenticated as Di.')
    expect(await directoryUser('Di')).toMatchObject({ roles: ['user'], admin: false })
  }, 240_000)

  it('a wallet without the credential is invited to the issuer; voice and image gates in English and Spanish', async () => {
    const { wallet, connectionId } = await walletWith('nobody')
    const invitation = wallet.nextDidComm(OOB_INVITATION)
    expect(await authenticate(wallet, connectionId)).toMatch(/If you do not hold it yet, accept the invitation/)
    expect((await invitation).json).toMatchObject({ services: [ISSUER_DID] })

    const share = async (mimeType: string) => {
      const reply = nextTextOn(wallet, connectionId)
      await wallet.agent.modules.media.share(connectionId, {
        items: [{ id: crypto.randomUUID(), uri: 'https://wallet.example.org/item', mimeType }],
      })
      return (await reply).content
    }
    expect(await share('audio/ogg')).toBe('Voice messages require authentication. Please authenticate first to use this feature.')
    expect(await share('image/jpeg')).toBe('Images require authentication. Please authenticate first to use this feature.')
    const spanishMenu = menuAfter(wallet, connectionId, 'login')
    await wallet.agent.modules.userProfile.send(connectionId, { profile: { displayName: 'Nadie', preferredLanguage: 'es' } })
    expect(await spanishMenu).toEqual(['login:Autenticarse', 'help:Help'])
    expect(await share('audio/ogg')).toBe(
      'Los mensajes de voz requieren autenticación. Por favor, autentícate primero para usar esta función.',
    )
    expect(await share('image/png')).toBe('Para enviar imágenes, primero autentícate con tu credencial.')
  }, 240_000)
})
