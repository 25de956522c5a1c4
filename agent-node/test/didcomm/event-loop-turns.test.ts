/**
 * `EventLoopTurns`: turns come in the order they were asked for, and between two turns the event
 * loop polls its sockets, even when the work of every turn settles synchronously (as SQLite and
 * DIDComm crypto do): a loopback HTTP request made before a run of such turns is answered while
 * the run is still going.
 */
import { createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventLoopTurns } from '../../src/didcomm/inbox/EventLoopTurns.ts'

const TURNS = 1_000

describe('EventLoopTurns', () => {
  const server = createServer((_request, response) => response.end('ok'))
  let port = 0

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it('grants turns in the order they were asked for', async () => {
    const turns = new EventLoopTurns()
    const order: number[] = []
    await Promise.all(Array.from({ length: 20 }, (_, n) => turns.next().then(() => order.push(n))))
    expect(order).toEqual(Array.from({ length: 20 }, (_, n) => n))
  })

  it('lets the event loop serve a socket between two turns of synchronously settled work', async () => {
    const turns = new EventLoopTurns()
    let turn = 0
    let answeredAtTurn: number | undefined
    const answered = new Promise<void>((resolve, reject) => {
      get(`http://127.0.0.1:${port}/`, (response) => {
        response.resume()
        response.on('end', () => {
          answeredAtTurn = turn
          resolve()
        })
      }).on('error', reject)
    })
    for (; turn < TURNS; turn++) {
      await turns.next()
      // work whose promises are settled when awaited, like a synchronous database driver's
      for (let i = 0; i < 100; i++) await Promise.resolve(i)
    }
    await answered
    expect(answeredAtTurn).toBeDefined()
    expect(answeredAtTurn).toBeLessThan(TURNS)
  })
})
