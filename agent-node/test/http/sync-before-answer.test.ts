/**
 * HTTP answers of agent-node leave only once what the request stored is durable
 * (`syncBeforeAnswer`): the answer waits for the sync the request started, and a failed sync
 * fails the answer instead of reporting a state that may not survive. Unit test: a Hono app
 * and a stand-in sync.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { syncBeforeAnswer } from '../../src/http/sync-before-answer.ts'
import { eventually } from '../support/conditions.ts'

describe('syncBeforeAnswer', () => {
  it('answers only after the sync started once the handler ran', async () => {
    const steps: string[] = []
    let release!: () => void
    const app = new Hono()
    app.use(
      syncBeforeAnswer(() => {
        steps.push('sync')
        return new Promise<void>((resolve) => (release = resolve))
      }),
    )
    app.post('/thing', (c) => {
      steps.push('stored')
      return c.json({ id: 'thing-1' }, 201)
    })
    let answered = false
    const answer = Promise.resolve(app.request('/thing', { method: 'POST' })).then((response) => {
      answered = true
      return response
    })
    await eventually(() => expect(steps).toEqual(['stored', 'sync']))
    expect(answered).toBe(false)
    release()
    const response = await answer
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ id: 'thing-1' })
  })

  it('turns a failed sync into a server error', async () => {
    const app = new Hono()
    app.use(syncBeforeAnswer(() => Promise.reject(new Error('EIO: the disk refused to sync'))))
    app.get('/thing', (c) => c.json({ ok: true }))
    const response = await app.request('/thing')
    expect(response.status).toBe(500)
  })
})
