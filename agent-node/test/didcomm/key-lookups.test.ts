/**
 * The lookups by key of every inbound message, kept once found (`didcomm/key-lookups.ts`), on a
 * real agent-node and wallet: later messages reach their connection without the DID lookups; a
 * connection that no longer links the two DIDs (a DID rotation that dropped the old one), is not
 * ready or is gone is not found from memory; a public DID's key is looked up every time.
 */
import { DidRepository, getPublicJwkFromVerificationMethod, type AgentContext } from '@credo-ts/core'
import { DidCommConnectionRepository, DidCommConnectionService, DidCommDidExchangeState, DidCommDocumentService } from '@credo-ts/didcomm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { KeyedConnectionService, KeyedDocumentService } from '../../src/didcomm/key-lookups.ts'
import { useWalletSession } from '../support/wallet-session.ts'

type Keys = Parameters<DidCommConnectionService['findByKeys']>[1]

describe('lookups by key', () => {
  const session = useWalletSession('key-lookups')
  const agent = () => session().node.agent
  const context = (): AgentContext => agent().context
  const dids = () => agent().dependencyManager.resolve(DidRepository)
  const connections = () => agent().dependencyManager.resolve(DidCommConnectionService)

  afterEach(() => vi.restoreAllMocks())

  /**
   * Sends a text from the wallet on `on` (both sides' ids of a connection; default the session's)
   * and waits until agent-node reports it on that connection. @returns the keys it came with.
   */
  async function textFromWallet(content: string, on: { connectionId: string; walletConnectionId: string } = session()): Promise<Keys> {
    const findByKeys = vi.spyOn(connections(), 'findByKeys')
    const id = await session().wallet.sendText(on.walletConnectionId, content)
    const received = await session().received(id)
    expect(received).toMatchObject({ connectionId: on.connectionId, content })
    const call = findByKeys.mock.calls.find(([, keys]) => keys.senderKey && keys.recipientKey)
    findByKeys.mockRestore()
    if (!call) throw new Error('the message was not looked up by its keys')
    return call[1]
  }

  it("puts Parley's services in Credo's place", () => {
    expect(connections()).toBeInstanceOf(KeyedConnectionService)
    expect(agent().dependencyManager.resolve(DidCommDocumentService)).toBeInstanceOf(KeyedDocumentService)
  })

  it('finds the connection of later messages without looking up a DID by key', async () => {
    await textFromWallet('first')
    const theirs = vi.spyOn(dids(), 'findReceivedDidByRecipientKey')
    const ours = vi.spyOn(dids(), 'findCreatedDidByRecipientKey')
    for (const content of ['second', 'third', 'fourth']) await textFromWallet(content)
    expect(theirs).not.toHaveBeenCalled()
    expect(ours).not.toHaveBeenCalled()
  })

  it('looks the connection up again once it no longer links the two DIDs, and finds none', async () => {
    const keys = await textFromWallet('before the rotation')
    const repository = agent().dependencyManager.resolve(DidCommConnectionRepository)
    const record = await repository.getById(context(), session().connectionId)
    const theirDid = record.theirDid
    // as a DID rotation does once the old DID is dropped (`removePreviousDids`)
    record.theirDid = 'did:peer:4zQmRotatedAwayRotatedAwayRotatedAwayRotatedAway'
    record.previousTheirDids = []
    await repository.update(context(), record)
    const theirs = vi.spyOn(dids(), 'findReceivedDidByRecipientKey')
    try {
      expect(await connections().findByKeys(context(), keys)).toBeNull()
      expect(theirs).toHaveBeenCalledTimes(1) // the full lookup ran
    } finally {
      record.theirDid = theirDid
      await repository.update(context(), record)
    }
    // and once it links them again it is found, and kept again
    expect((await connections().findByKeys(context(), keys))?.id).toBe(session().connectionId)
    expect((await connections().findByKeys(context(), keys))?.id).toBe(session().connectionId)
    expect(theirs).toHaveBeenCalledTimes(2)
  })

  it('does not find a connection that is not ready from memory', async () => {
    const keys = await textFromWallet('before it is abandoned')
    const repository = agent().dependencyManager.resolve(DidCommConnectionRepository)
    const record = await repository.getById(context(), session().connectionId)
    record.state = DidCommDidExchangeState.Abandoned
    await repository.update(context(), record)
    try {
      expect(await connections().findByKeys(context(), keys)).toBeNull()
    } finally {
      record.state = DidCommDidExchangeState.Completed
      await repository.update(context(), record)
    }
  })

  it('does not find a deleted connection from memory', async () => {
    const connection = await session().connect()
    const { connectionId } = connection
    const keys = await textFromWallet('to be deleted', connection)
    expect((await connections().findByKeys(context(), keys))?.id).toBe(connectionId)
    const deleted = await fetch(`http://127.0.0.1:${session().node.adminPort}/v1/connections/${connectionId}`, { method: 'DELETE' })
    expect(deleted.status).toBeLessThan(300)
    expect(await connections().findByKeys(context(), keys)).toBeNull()
  })

  it("looks the key of a public DID up every time (its keys may change, a peer DID's cannot)", async () => {
    const { publicDid } = (await (await fetch(`http://127.0.0.1:${session().node.adminPort}/v1/agent`)).json()) as { publicDid: string }
    const [record] = await dids().getCreatedDids(context(), { did: publicDid })
    const method = record?.didDocument?.verificationMethod?.find((m) => m.type === 'Ed25519VerificationKey2020' || m.type === 'Multikey')
    if (!record?.didDocument || !method) throw new Error(`no Ed25519 key in the document of ${publicDid}`)
    const key = getPublicJwkFromVerificationMethod(method)
    const ours = vi.spyOn(dids(), 'findCreatedDidByRecipientKey')
    const documents = agent().dependencyManager.resolve(DidCommDocumentService)
    const lookupsPerCall: number[] = []
    for (let i = 0; i < 2; i++) {
      const before = ours.mock.calls.length
      expect((await documents.resolveCreatedDidDocumentWithKeysByRecipientKey(context(), key)).didDocument.id).toBe(publicDid)
      lookupsPerCall.push(ours.mock.calls.length - before)
    }
    expect(lookupsPerCall[0]).toBeGreaterThan(0)
    expect(lookupsPerCall[1]).toBe(lookupsPerCall[0])
  })
})
