/**
 * Malformed WebSocket frames on the public port, sent without any authentication right after a
 * valid upgrade, against a real agent-node process (`main.ts`, so with its last-resort handlers):
 * each closes that one socket, and agent-node keeps answering HTTP and DIDComm. The frames are
 * the ones `ws` refuses (RFC 6455 §5.2): oversize length, invalid UTF-8, unmasked, reserved
 * opcode, RSV1 without an extension, invalid close code, control frame over 125 bytes.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { startAgentNodeProcess, type AgentNodeProcess } from '../../../scripts/local-stack.ts'

/** A client frame: FIN + `opcode` (+ `rsv1`), masked unless `masked` is false, with `payload`. */
function frame(opcode: number, payload: Buffer, options: { masked?: boolean; rsv1?: boolean; declaredLength?: bigint } = {}): Buffer {
  const masked = options.masked ?? true
  const first = 0x80 | (options.rsv1 ? 0x40 : 0) | opcode
  const length = options.declaredLength ?? BigInt(payload.length)
  let header: Buffer
  if (length < 126n) header = Buffer.from([first, (masked ? 0x80 : 0) | Number(length)])
  else if (length < 65_536n) {
    header = Buffer.alloc(4)
    header.writeUInt16BE(Number(length), 2)
    header[1] = (masked ? 0x80 : 0) | 126
  } else {
    header = Buffer.alloc(10)
    header.writeBigUInt64BE(length, 2)
    header[1] = (masked ? 0x80 : 0) | 127
  }
  header[0] = first
  if (!masked) return Buffer.concat([header, payload])
  const mask = randomBytes(4)
  return Buffer.concat([header, mask, Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!))])
}

const closeCode = (code: number) => {
  const payload = Buffer.alloc(2)
  payload.writeUInt16BE(code)
  return payload
}

const MALFORMED: Array<[string, Buffer]> = [
  ['a length far over maxPayload', frame(0x2, Buffer.alloc(16), { declaredLength: 1n << 40n })],
  ['invalid UTF-8 in a text frame', frame(0x1, Buffer.from([0xc3, 0x28, 0xff, 0xfe]))],
  ['an unmasked client frame', frame(0x1, Buffer.from('{}'), { masked: false })],
  ['a reserved opcode', frame(0x3, Buffer.from('x'))],
  ['RSV1 without permessage-deflate', frame(0x1, Buffer.from('{}'), { rsv1: true })],
  ['an invalid close code', frame(0x8, closeCode(1005))],
  ['a ping over 125 bytes', frame(0x9, Buffer.alloc(200, 1))],
]

/** Upgrades a raw TCP connection to `port`, writes `bytes`, and resolves once agent-node closed it. */
function sendAfterUpgrade(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    let upgraded = false
    socket.on('error', reject)
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      if (!upgraded && received.includes('\r\n\r\n')) {
        upgraded = true
        if (!received.startsWith('HTTP/1.1 101')) reject(new Error(`no upgrade: ${received.split('\r\n')[0]}`))
        socket.write(bytes)
      }
    })
    socket.on('close', () => resolve(received))
    socket.write(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
  })
}

describe('malformed WebSocket frames on the public port', () => {
  let agent: AgentNodeProcess
  let publicPort: number
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-frames-'))

  beforeAll(async () => {
    publicPort = await freePort()
    agent = await startAgentNodeProcess({
      env: {
        AGENT_LABEL: 'frames-test',
        DATA_DIR: dataDir,
        AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
        PUBLIC_PORT: String(publicPort),
        AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
        LOG_LEVEL: 'warn',
      },
    })
  }, 90_000)

  afterAll(async () => {
    await agent?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it.each(MALFORMED)('%s closes that socket; agent-node keeps serving', async (_what, bytes) => {
    const answer = await sendAfterUpgrade(publicPort, bytes)
    expect(answer.startsWith('HTTP/1.1 101')).toBe(true)
    const health = await fetch(`http://127.0.0.1:${publicPort}/health`)
    expect(health.status).toBe(200)
    expect(agent.child.exitCode).toBeNull()
  })

  it('still completes DID Exchange with a wallet afterwards, and no socket error reached the last-resort handler', async () => {
    const wallet = await WalletPeer.create({ label: 'frames-wallet', logger: createLogger('silent', 'wallet') })
    try {
      const { url } = (await (await fetch(`${agent.adminUrl}/v1/invitation`)).json()) as { url: string }
      const connectionId = await wallet.connect(url)
      expect(connectionId).toMatch(/[0-9a-f-]{36}/)
    } finally {
      await wallet.stop()
    }
    expect(agent.child.exitCode).toBeNull()
    expect(agent.output()).not.toMatch(/uncaught|unhandled/i)
    expect(agent.output()).toMatch(/DIDComm WebSocket closed on a protocol error/)
  }, 60_000)
})
