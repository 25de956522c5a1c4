import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { encodeAttributeValue, normalizeAttributeName } from '../../src/anoncreds/encoding/index.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const VECTORS = VECTORS_DIR
const credential = JSON.parse(readFileSync(`${VECTORS}/anoncreds-legacy-credential.json`, 'utf8')) as {
  values: Record<string, { raw: string; encoded: string }>
}

describe('anoncreds encoding', () => {
  it('reproduces every raw/encoded pair of the vector credential', () => {
    const pairs = Object.values(credential.values)
    expect(pairs.length).toBeGreaterThan(0)
    for (const { raw, encoded } of pairs) expect(encodeAttributeValue(raw)).toBe(encoded)
  })

  it('keeps 32-bit integers as Rust parse::<i32>() reads them', () => {
    expect(encodeAttributeValue('0')).toBe('0')
    expect(encodeAttributeValue('-0')).toBe('0')
    expect(encodeAttributeValue('+7')).toBe('7')
    expect(encodeAttributeValue('007')).toBe('7')
    expect(encodeAttributeValue('-42')).toBe('-42')
    expect(encodeAttributeValue('2147483647')).toBe('2147483647')
    expect(encodeAttributeValue('-2147483648')).toBe('-2147483648')
  })

  it('hashes everything else with SHA-256 read big-endian', () => {
    expect(encodeAttributeValue('2147483648')).not.toBe('2147483648')
    expect(encodeAttributeValue('-2147483649')).not.toBe('-2147483649')
    for (const raw of ['', ' 1', '1 ', '1.0', '0x10', '+', '-', '--1', '1e3', '١٢']) {
      expect(encodeAttributeValue(raw)).toMatch(/^[0-9]+$/)
      expect(BigInt(encodeAttributeValue(raw))).toBeGreaterThan(2n ** 31n) // overwhelmingly likely for a hash
    }
    expect(encodeAttributeValue('5435')).toBe('5435')
    // SHA-256 of the empty string, read big-endian
    expect(encodeAttributeValue('')).toBe('102987336249554097029535212322581322789799900648198034993379397001115665086549')
  })

  it('normalises attribute names like attr_common_view', () => {
    expect(normalizeAttributeName('First Name')).toBe('firstname')
    expect(normalizeAttributeName(' AGE ')).toBe('age')
    expect(normalizeAttributeName('master_secret')).toBe('master_secret')
    expect(normalizeAttributeName('a\tB')).toBe('a\tb') // only U+0020 is removed
  })
})
