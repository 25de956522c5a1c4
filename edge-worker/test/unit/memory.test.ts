import { describe, expect, it } from 'vitest'
import { InMemoryWindow } from '../../src/conversation/memory.ts'

describe('memory backend `memory` (the window kept in the object)', () => {
  it('gives the last messages of events with a lower seq, in seq order, late events in their place', () => {
    const window = new InMemoryWindow(100)
    window.remember(1, [
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'a1' },
    ])
    window.remember(3, [
      { role: 'user', content: 'u3' },
      { role: 'assistant', content: 'a3' },
    ])
    window.remember(2, [
      { role: 'user', content: 'u2' },
      { role: 'assistant', content: 'a2' },
    ])
    expect(window.before(3, 10).map((turn) => turn.content)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(window.before(4, 3).map((turn) => turn.content)).toEqual(['a2', 'u3', 'a3'])
    expect(window.before(2, 0)).toEqual([])
  })

  it('starts empty, as a fresh (evicted and restarted) object does', () => {
    expect(new InMemoryWindow(16).before(Number.MAX_SAFE_INTEGER, 8)).toEqual([])
  })

  it('keeps only the newest `capacity` messages, however long the chat', () => {
    const window = new InMemoryWindow(4)
    for (let seq = 1; seq <= 1_000; seq++) {
      window.remember(seq, [
        { role: 'user', content: `u${seq}` },
        { role: 'assistant', content: `a${seq}` },
      ])
    }
    expect(window.before(Number.MAX_SAFE_INTEGER, 100).map((turn) => turn.content)).toEqual(['u999', 'a999', 'u1000', 'a1000'])
    // a late event takes its place, and the oldest message leaves
    window.remember(999, [{ role: 'user', content: 'late' }])
    expect(window.before(Number.MAX_SAFE_INTEGER, 100).map((turn) => turn.content)).toEqual(['a999', 'late', 'u1000', 'a1000'])
  })
})
