/**
 * A small MessagePack codec that keeps map key order, so a value decoded and re-encoded comes
 * out byte for byte as rmp-serde (`rmp_serde::to_vec_named`, used by anoncreds-rs
 * `src/utils/msg_pack.rs`) wrote it. `@msgpack/msgpack` decodes maps into plain objects, which
 * reorders integer-like keys (`"0"`, `"1"`, ... in predicate proofs), hence this codec.
 *
 * Values: `null`, `boolean`, `number` (safe integers), `string`, `Uint8Array` (bin), arrays, and
 * `Map<string, MsgValue>` for maps. Integers use the smallest encoding, as rmp does.
 */
export type MsgValue = null | boolean | number | string | Uint8Array | MsgValue[] | MsgMap

/** An order-preserving MessagePack map. */
export type MsgMap = Map<string, MsgValue>

/** Encodes `value` as MessagePack. Throws `Error` on non-integer numbers or unsupported values. */
export function msgpackEncode(value: MsgValue): Uint8Array {
  const out: number[] = []
  writeValue(out, value)
  return Uint8Array.from(out)
}

/** Decodes one MessagePack value; throws `Error` on truncated or unsupported input or trailing bytes. */
export function msgpackDecode(bytes: Uint8Array): MsgValue {
  const reader = { bytes, pos: 0 }
  const value = readValue(reader)
  if (reader.pos !== bytes.length) throw new Error('unexpected trailing bytes after MessagePack value')
  return value
}

function pushBE(out: number[], value: number | bigint, size: number): void {
  let v = BigInt(value)
  const bytes: number[] = []
  for (let i = 0; i < size; i++) {
    bytes.unshift(Number(v & 0xffn))
    v >>= 8n
  }
  out.push(...bytes)
}

function writeLength(out: number[], length: number, fix: number | null, fixMax: number, codes: [number, number, number]): void {
  if (fix !== null && length <= fixMax) out.push(fix | length)
  else if (codes[0] !== 0 && length < 0x100) out.push(codes[0], length)
  else if (length < 0x10000) {
    out.push(codes[1])
    pushBE(out, length, 2)
  } else {
    out.push(codes[2])
    pushBE(out, length, 4)
  }
}

function writeValue(out: number[], value: MsgValue): void {
  if (value === null) out.push(0xc0)
  else if (value === true) out.push(0xc3)
  else if (value === false) out.push(0xc2)
  else if (typeof value === 'number') writeInt(out, value)
  else if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value)
    writeLength(out, bytes.length, 0xa0, 31, [0xd9, 0xda, 0xdb])
    out.push(...bytes)
  } else if (value instanceof Uint8Array) {
    writeLength(out, value.length, null, -1, [0xc4, 0xc5, 0xc6])
    out.push(...value)
  } else if (Array.isArray(value)) {
    writeLength(out, value.length, 0x90, 15, [0, 0xdc, 0xdd])
    for (const item of value) writeValue(out, item)
  } else if (value instanceof Map) {
    writeLength(out, value.size, 0x80, 15, [0, 0xde, 0xdf])
    for (const [key, item] of value) {
      writeValue(out, key)
      writeValue(out, item)
    }
  } else {
    throw new Error(`cannot MessagePack-encode ${typeof value}`)
  }
}

function writeInt(out: number[], value: number): void {
  if (!Number.isSafeInteger(value)) throw new Error(`cannot MessagePack-encode non-integer number ${value}`)
  if (value >= 0) {
    if (value < 0x80) out.push(value)
    else if (value < 0x100) out.push(0xcc, value)
    else if (value < 0x10000) {
      out.push(0xcd)
      pushBE(out, value, 2)
    } else if (value < 0x100000000) {
      out.push(0xce)
      pushBE(out, value, 4)
    } else {
      out.push(0xcf)
      pushBE(out, value, 8)
    }
  } else {
    if (value >= -32) out.push(value & 0xff)
    else if (value >= -0x80) out.push(0xd0, value & 0xff)
    else if (value >= -0x8000) {
      out.push(0xd1)
      pushBE(out, BigInt.asUintN(16, BigInt(value)), 2)
    } else if (value >= -0x80000000) {
      out.push(0xd2)
      pushBE(out, BigInt.asUintN(32, BigInt(value)), 4)
    } else {
      out.push(0xd3)
      pushBE(out, BigInt.asUintN(64, BigInt(value)), 8)
    }
  }
}

type Reader = { bytes: Uint8Array; pos: number }

function take(r: Reader, n: number): Uint8Array {
  if (r.pos + n > r.bytes.length) throw new Error('truncated MessagePack value')
  const slice = r.bytes.subarray(r.pos, r.pos + n)
  r.pos += n
  return slice
}

function readUint(r: Reader, n: number): number {
  let v = 0n
  for (const b of take(r, n)) v = (v << 8n) | BigInt(b)
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('MessagePack integer exceeds the safe integer range')
  return Number(v)
}

function readInt(r: Reader, n: number): number {
  let v = 0n
  for (const b of take(r, n)) v = (v << 8n) | BigInt(b)
  return Number(BigInt.asIntN(n * 8, v))
}

function readArray(r: Reader, n: number): MsgValue[] {
  const items: MsgValue[] = []
  for (let i = 0; i < n; i++) items.push(readValue(r))
  return items
}

function readMap(r: Reader, n: number): MsgMap {
  const map: MsgMap = new Map()
  for (let i = 0; i < n; i++) {
    const key = readValue(r)
    if (typeof key !== 'string') throw new Error('MessagePack map keys must be strings')
    map.set(key, readValue(r))
  }
  return map
}

function readString(r: Reader, n: number): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(take(r, n))
}

function readValue(r: Reader): MsgValue {
  const [code] = take(r, 1) as unknown as [number]
  if (code < 0x80) return code
  if (code >= 0xe0) return code - 0x100
  if ((code & 0xf0) === 0x80) return readMap(r, code & 0x0f)
  if ((code & 0xf0) === 0x90) return readArray(r, code & 0x0f)
  if ((code & 0xe0) === 0xa0) return readString(r, code & 0x1f)
  switch (code) {
    case 0xc0:
      return null
    case 0xc2:
      return false
    case 0xc3:
      return true
    case 0xc4:
      return take(r, readUint(r, 1)).slice()
    case 0xc5:
      return take(r, readUint(r, 2)).slice()
    case 0xc6:
      return take(r, readUint(r, 4)).slice()
    case 0xcc:
      return readUint(r, 1)
    case 0xcd:
      return readUint(r, 2)
    case 0xce:
      return readUint(r, 4)
    case 0xcf:
      return readUint(r, 8)
    case 0xd0:
      return readInt(r, 1)
    case 0xd1:
      return readInt(r, 2)
    case 0xd2:
      return readInt(r, 4)
    case 0xd3:
      return readInt(r, 8)
    case 0xd9:
      return readString(r, readUint(r, 1))
    case 0xda:
      return readString(r, readUint(r, 2))
    case 0xdb:
      return readString(r, readUint(r, 4))
    case 0xdc:
      return readArray(r, readUint(r, 2))
    case 0xdd:
      return readArray(r, readUint(r, 4))
    case 0xde:
      return readMap(r, readUint(r, 2))
    case 0xdf:
      return readMap(r, readUint(r, 4))
    default:
      throw new Error(`unsupported MessagePack type 0x${code.toString(16)}`)
  }
}
