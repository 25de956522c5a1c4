import { describe, expect, it } from 'vitest'
import { ForwardOnly } from '../src/forward-only/index.ts'

describe('ForwardOnly', () => {
  const order = new ForwardOnly(['created', ['sent', 'errored'], 'delivered'].map((s) => (Array.isArray(s) ? s : [s])))

  it('takes a move to a later stage, from no state at all too', () => {
    expect(order.advances(undefined, 'sent')).toBe(true)
    expect(order.advances('created', 'sent')).toBe(true)
    expect(order.advances('created', 'delivered')).toBe(true)
  })

  it('refuses a move back, to the same state or sideways within a stage', () => {
    expect(order.advances('delivered', 'sent')).toBe(false)
    expect(order.advances('sent', 'sent')).toBe(false)
    expect(order.advances('sent', 'errored')).toBe(false)
  })

  it('names an unknown state and a state given twice', () => {
    expect(() => order.advances('created', 'viewed')).toThrow("unknown state 'viewed'")
    expect(() => new ForwardOnly([['a'], ['a']])).toThrow("state 'a' is named twice")
  })
})
