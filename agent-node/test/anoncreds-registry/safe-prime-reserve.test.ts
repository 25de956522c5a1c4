/**
 * Safe primes searched ahead of time (`SafePrimeReserve`, `CredentialKeyWorkers`): the reserve
 * fills one search at a time, a key generation takes from it and pauses the refill, the refill
 * resumes afterwards; keys made from reserved primes give a credential definition whose
 * credentials present and verify; agent-node fills its reserve only once it issues (after its
 * first credential definition, or at start-up when it already has credential types).
 * The reserve's own logic runs on scripted searches; everything else on real 1,025-bit primes.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { CredentialKeyWorkers, type KeyGenerationProgress } from '../../src/anoncreds-registry/key-generation/CredentialKeyWorkers.ts'
import { SafePrimeReserve } from '../../src/anoncreds-registry/key-generation/SafePrimeReserve.ts'
import { createAnoncredsEngine, credentialKeyAttributeNames } from '../../../shared/src/anoncreds/lib/index.ts'
import { FIXTURE_ATTRIBUTES, fixturePresentations, issueAnoncredsFixture } from '../../../shared/test/anoncreds/support/fixture.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

/** Searches that the test settles by hand, in order. */
function scriptedSearches() {
  const pending: Array<{ resolve: (value: bigint) => void; reject: (error: Error) => void }> = []
  let next = 100n
  return {
    search: () => new Promise<bigint>((resolve, reject) => pending.push({ resolve, reject })),
    get inFlight() {
      return pending.length
    },
    async finish() {
      pending.shift()!.resolve(next++)
      await new Promise((resolve) => setImmediate(resolve))
    },
    async fail() {
      pending.shift()!.reject(new Error('worker thread gone'))
      await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

/** Polls `condition` every 50 ms until it holds, failing after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('SafePrimeReserve', () => {
  it('fills one search at a time up to its size and resolves fill() when full', async () => {
    const searches = scriptedSearches()
    const reserve = new SafePrimeReserve(2, searches.search)
    let full = false
    const filled = reserve.fill().then(() => {
      full = true
    })
    expect(searches.inFlight).toBe(1)
    await searches.finish()
    expect([reserve.ready, searches.inFlight, full]).toEqual([1, 1, false])
    await searches.finish()
    await filled
    expect([reserve.ready, searches.inFlight, full]).toEqual([2, 0, true])
  })

  it('take() hands out found primes first, then the one being searched for, and pauses the refill until fill()', async () => {
    const searches = scriptedSearches()
    const reserve = new SafePrimeReserve(2, searches.search)
    void reserve.fill()
    await searches.finish() // 100 ready, 101 in flight
    const [first, second, third] = reserve.take(3)
    expect(third).toBeUndefined()
    expect(await first).toBe(100n)
    await searches.finish()
    expect(await second).toBe(101n)
    // paused: nothing is searched and nothing was kept
    expect([reserve.ready, searches.inFlight]).toEqual([0, 0])
    const filled = reserve.fill()
    await searches.finish()
    await searches.finish()
    await filled
    expect(reserve.ready).toBe(2)
    expect(await Promise.all(reserve.take(2))).toEqual([102n, 103n])
  })

  it('size 0 never searches; a failed search stops filling until the next fill(); close() forgets the primes', async () => {
    const none = scriptedSearches()
    await new SafePrimeReserve(0, none.search).fill()
    expect(none.inFlight).toBe(0)

    const searches = scriptedSearches()
    const reserve = new SafePrimeReserve(2, searches.search)
    const filled = reserve.fill()
    await searches.fail()
    await filled
    expect([reserve.ready, searches.inFlight]).toEqual([0, 0])
    void reserve.fill()
    await searches.finish()
    expect(reserve.ready).toBe(1)
    reserve.close()
    expect(reserve.ready).toBe(0)
    await searches.finish() // the search in flight ends into nothing
    expect([reserve.ready, searches.inFlight]).toEqual([0, 0])
    await reserve.fill()
    expect(searches.inFlight).toBe(0)
    expect(() => new SafePrimeReserve(-1, searches.search)).toThrow(RangeError)
  })
})

describe('CredentialKeyWorkers with a reserve', () => {
  const workers = new CredentialKeyWorkers({ reserve: 2 })
  afterAll(() => workers.close())

  it('makes a credential definition from reserved primes (no search), which issues, presents and verifies; then refills', async () => {
    await workers.fillReserve()
    expect(workers.reservedPrimes).toBe(2)

    const progress: KeyGenerationProgress[] = []
    const keys = await workers.generate(credentialKeyAttributeNames(Object.keys(FIXTURE_ATTRIBUTES)), (p) => progress.push(p))
    expect(progress.map((p) => [p.step, p.source, p.done])).toEqual([
      ['safe prime', 'reserve', 1],
      ['safe prime', 'reserve', 2],
      ['keys', undefined, 3],
    ])
    const fixture = issueAnoncredsFixture(keys)
    expect(JSON.parse(fixture.credentialDefinition).value.primary).toEqual(keys.primary)
    const engine = createAnoncredsEngine()
    const { present, verify } = fixturePresentations(engine, fixture)
    expect(verify(present(engine.generateNonce(), 18))).toBe(true)

    // the generation resumed the refill: two new primes, none of them the ones used
    await workers.fillReserve()
    expect(workers.reservedPrimes).toBe(2)
  }, 180_000)
})

describe('agent-node and its reserve', () => {
  let node: TestAgentNode | undefined
  afterAll(() => node?.close())

  it('fills after its first credential definition, and at start-up once it has credential types', async () => {
    node = await startTestAgentNode({ ANONCREDS_SAFE_PRIME_RESERVE: '2' }, { label: 'reserve' })
    expect(node.node.credentialKeys.reservedPrimes).toBe(0)
    const create = async (name: string) => {
      const response = await node!.admin('/v1/credential-types', { body: { name, version: '1.0', attributes: ['name', 'age'] } })
      expect(response.status, await response.clone().text()).toBe(201)
    }
    await create('first')
    await until(() => node!.node.credentialKeys.reservedPrimes === 2, 'reserve filled after the first definition')

    await node.restart()
    expect(node.node.credentialKeys.reservedPrimes).toBe(0)
    await until(() => node!.node.credentialKeys.reservedPrimes === 2, 'reserve filled at start-up of an issuer')
    await create('second')
  }, 240_000)
})
