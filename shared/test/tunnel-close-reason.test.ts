import { describe, expect, it } from 'vitest'
import { replacedCloseReason, replacingNonce, signTunnelHandshake } from '../src/tunnel/index.ts'

describe('the takeover close reason', () => {
  it("names the replacing handshake's nonce, within the 123 bytes a close reason may hold", async () => {
    const { nonce } = await signTunnelHandshake('a-secret')
    const reason = replacedCloseReason(nonce)
    expect(new TextEncoder().encode(reason).length).toBeLessThanOrEqual(123)
    expect(replacingNonce(reason)).toBe(nonce)
  })

  it('names no nonce in a reason without one, or with something else in its place', () => {
    expect(replacingNonce('replaced by a newer tunnel connection')).toBeUndefined()
    expect(replacingNonce('')).toBeUndefined()
    expect(replacingNonce(replacedCloseReason('abc'))).toBeUndefined()
    expect(replacingNonce(replacedCloseReason('F'.repeat(32)))).toBeUndefined()
  })
})
