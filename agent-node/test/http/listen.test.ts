/** listen(): a port in use is a clear rejection; a server error after start-up is logged, not thrown. */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { boundPort, listen } from '../../src/http/listen.ts'
import { captureLogs } from '../support/log-lines.ts'

describe('listen', () => {
  it('rejects naming the port when it is taken', async () => {
    const first = await listen(new Hono().fetch, 0, '127.0.0.1')
    try {
      await expect(listen(new Hono().fetch, boundPort(first), '127.0.0.1')).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/)
    } finally {
      first.close()
    }
  })

  it('logs a later server error (an accept failing with EMFILE) and keeps serving', async () => {
    const { logger, lines } = captureLogs()
    const server = await listen(new Hono().get('/health', (c) => c.text('ok')).fetch, 0, '127.0.0.1', logger)
    try {
      // What net.Server emits when accept() fails; without a listener it would end the process.
      server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' }))
      expect(lines.at(-1)?.msg).toMatch(/server error; still listening/)
      expect((await fetch(`http://127.0.0.1:${boundPort(server)}/health`)).status).toBe(200)
    } finally {
      server.close()
    }
  })
})
