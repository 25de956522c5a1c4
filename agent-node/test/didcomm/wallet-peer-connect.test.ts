/**
 * `WalletPeer.connect` waits for its own DID Exchange and gives up after `timeoutMs` with an error
 * that says so. The invitation names an endpoint that takes the exchange request over HTTP and
 * never answers it, as an agent that went away mid-handshake would.
 */
import { generateKeyPairSync } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Kms, TypedArrayEncoder } from '@credo-ts/core'
import { DidCommOutOfBandInvitation } from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'

/** An out-of-band invitation URL (DID Exchange 1.1) to a fresh key at `serviceEndpoint`. */
function invitationUrl(serviceEndpoint: string): string {
  const { publicKey } = generateKeyPairSync('ed25519')
  const raw = TypedArrayEncoder.fromBase64(publicKey.export({ format: 'jwk' }).x as string)
  const recipientKey = Kms.PublicJwk.fromPublicKey({ kty: 'OKP', crv: 'Ed25519', publicKey: raw })
  const invitation = new DidCommOutOfBandInvitation({
    label: 'agent that went away',
    handshakeProtocols: ['https://didcomm.org/didexchange/1.1'],
    services: [
      { id: '#inline', type: 'did-communication', recipientKeys: [`did:key:${recipientKey.fingerprint}`], serviceEndpoint } as never,
    ],
  })
  return invitation.toUrl({ domain: 'https://example.org' })
}

describe('WalletPeer.connect', () => {
  let silent: Server
  let wallet: WalletPeer
  let requests = 0

  beforeAll(async () => {
    silent = createServer((request, response) => {
      requests++
      request.resume()
      request.on('end', () => response.end()) // 200, no DID Exchange response ever
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    wallet = await WalletPeer.create({ label: 'impatient wallet', logger: createLogger('silent') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await new Promise((resolve) => silent?.close(resolve))
  })

  it('gives up on a DID Exchange that does not complete within the time given, and says so', async () => {
    const url = invitationUrl(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`)
    await expect(wallet.connect(url, 1_000)).rejects.toThrow('DID Exchange did not complete within 1000 ms')
    expect(requests).toBe(1) // the request was sent; only the answer never came
  })

  it('fails, with nothing left waiting, when the exchange request cannot be sent', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await expect(wallet.connect(invitationUrl(`http://127.0.0.1:${port}`), 300)).rejects.toThrow()
      // past the time given: a wait still pending would now reject with no one to hear it
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})
