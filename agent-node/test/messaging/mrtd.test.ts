/**
 * Travel-document flows end to end between agent-node and the wallet peer over WebSocket (2060.io
 * MRTD): the controller's `mrz-data-request` / `emrtd-data-request` reach the wallet; the wallet's
 * data (or refusal) reach the controller as `mrz-data-submit` / `emrtd-data-submit` on the
 * request's thread; bad bodies are refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EMrtdDataRequestMessage, MrtdProblemReportReason, MrzDataRequestMessage } from '../../src/didcomm/protocols/mrtd/index.ts'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

const MRZ = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']

describe('MRTD messages', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('mrtd')
  })
  afterAll(async () => {
    await session?.stop()
  })

  /** Sends a request of `type` through the admin API; resolves with its id once the wallet has it. */
  const request = async (type: 'mrz-data-request' | 'emrtd-data-request', messageType: string) => {
    const onWire = session.wallet.nextDidComm(messageType)
    const { status, json } = await session.postJson({ type, connectionId: session.connectionId, threadId: 'onboarding-flow' })
    expect(status).toBe(200)
    const { json: wire } = await onWire
    expect(wire['@id']).toBe(json.id)
    expect(wire['~thread']).toEqual({ pthid: 'onboarding-flow' })
    return json.id as string
  }

  it('requests the MRZ and reports the scanned lines on the request thread', async () => {
    const requestId = await request('mrz-data-request', MrzDataRequestMessage.type.messageTypeUri)
    const answer = await session.wallet.agent.modules.mrtd.sendMrzData(session.walletConnectionId, { threadId: requestId, mrzData: MRZ })
    expect(await session.received(answer.id)).toEqual({
      type: 'mrz-data-submit',
      id: answer.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: requestId,
      state: 'submitted',
      mrzData: { raw: MRZ },
    })
  })

  it('requests the chip data and reports the data groups on the request thread', async () => {
    const requestId = await request('emrtd-data-request', EMrtdDataRequestMessage.type.messageTypeUri)
    const dataGroups = { COM: 'YBZfAQ==', DG1: 'YVtfHw==', SOD: 'd4IHAA==' }
    const answer = await session.wallet.agent.modules.mrtd.sendEMrtdData(session.walletConnectionId, { threadId: requestId, dataGroups })
    expect(await session.received(answer.id)).toEqual({
      type: 'emrtd-data-submit',
      id: answer.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: requestId,
      state: 'submitted',
      dataGroups: { raw: dataGroups },
    })
  })

  it.each([
    ['mrz-data-request', MrtdProblemReportReason.MrzRefused, 'mrz-data-submit', 'declined', MrzDataRequestMessage.type.messageTypeUri],
    [
      'emrtd-data-request',
      MrtdProblemReportReason.EMrtdTimeout,
      'emrtd-data-submit',
      'timeout',
      EMrtdDataRequestMessage.type.messageTypeUri,
    ],
  ] as const)('reports a %s the wallet answers with %s as %s %s', async (type, reason, submitType, state, messageType) => {
    const requestId = await request(type, messageType)
    const report = await session.wallet.agent.modules.mrtd.sendProblemReport(session.walletConnectionId, { threadId: requestId, reason })
    expect(await session.received(report.id)).toEqual({
      type: submitType,
      id: report.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: requestId,
      state,
    })
  })

  it.each([
    [{ type: 'mrz-data-request', threadId: '' }, 'threadId'],
    [{ type: 'emrtd-data-request', connectionId: 'not-a-uuid' }, 'connectionId'],
    [{ type: 'mrz-data-submit' }, 'type'],
  ])('refuses a bad MRTD body %j naming %s', async (fields, field) => {
    const { status, json } = await session.postJson({ connectionId: session.connectionId, ...fields })
    expect(status).toBe(400)
    expect((json.issues as { field: string }[]).map((issue) => issue.field)).toContain(field)
  })
})
