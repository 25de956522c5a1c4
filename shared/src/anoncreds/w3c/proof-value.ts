import { revocationNotSupported } from '../lib/errors.ts'
import type { SubProof } from '../objects/cl.ts'
import { base64UrlDecode, base64UrlEncode } from './base64url.ts'
import { type MsgMap, type MsgValue, msgpackDecode, msgpackEncode } from './msgpack.ts'

// The three AnonCreds `proofValue` payloads (anoncreds-rs `src/data_types/w3c/proof.rs`), in
// their JSON shape (big integers as decimal strings). On the wire each is the msgpack array
// `[tag, map]` with named maps (`rmp_serde::to_vec_named`), big integers as arrays of their
// minimal big-endian bytes, then `u` + base64url. Revocation values (curve points) are not
// supported yet: encountering one throws "revocation not supported yet".

/** Tag 1: the issuer's signature, in a W3C credential's proof. */
export type CredentialSignatureProofValue = {
  schema_id: string
  cred_def_id: string
  rev_reg_id?: string
  signature: { p_credential: { m_2: string; a: string; e: string; v: string }; r_credential: null }
  signature_correctness_proof: { se: string; c: string }
}

/** Tag 2: one credential's sub-proof, in a W3C presentation's credential. */
export type CredentialPresentationProofValue = {
  schema_id: string
  cred_def_id: string
  rev_reg_id?: string
  timestamp?: number
  sub_proof: SubProof
}

/** Tag 3: the aggregated proof, in a W3C presentation's own proof. */
export type PresentationProofValue = { aggregated: { c_hash: string; c_list: number[][] } }

/** A decoded `proofValue`. */
export type ProofValue =
  | { kind: 'credentialSignature'; value: CredentialSignatureProofValue }
  | { kind: 'credentialPresentation'; value: CredentialPresentationProofValue }
  | { kind: 'presentation'; value: PresentationProofValue }

/** Minimal big-endian bytes of a non-negative decimal (OpenSSL `BN_bn2bin`; zero is no bytes). */
export function decimalToBytes(decimal: string): number[] {
  let v = BigInt(decimal)
  if (v < 0n) v = -v
  const bytes: number[] = []
  while (v > 0n) {
    bytes.unshift(Number(v & 0xffn))
    v >>= 8n
  }
  return bytes
}

/** Decimal of big-endian bytes (an array of byte values). */
export function bytesToDecimal(value: MsgValue, what: string): string {
  const bytes = value instanceof Uint8Array ? [...value] : value
  if (!Array.isArray(bytes) || !bytes.every((b) => typeof b === 'number' && b >= 0 && b < 256)) {
    throw new Error(`${what}: expected a big integer as bytes`)
  }
  let v = 0n
  for (const b of bytes as number[]) v = (v << 8n) | BigInt(b)
  return v.toString()
}

const bn = (decimal: string): MsgValue => decimalToBytes(decimal)

function bnMap(record: Record<string, string>): MsgMap {
  return new Map(Object.entries(record).map(([k, v]) => [k, bn(v)]))
}

function field(map: MsgValue, key: string, what: string): MsgValue {
  if (!(map instanceof Map)) throw new Error(`${what}: expected a map`)
  if (!map.has(key)) throw new Error(`${what}.${key}: missing`)
  return map.get(key) as MsgValue
}

function optional(map: MsgValue, key: string): MsgValue | undefined {
  return map instanceof Map && map.has(key) && map.get(key) !== null ? map.get(key) : undefined
}

function str(value: MsgValue, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what}: expected a string`)
  return value
}

function num(value: MsgValue, what: string): number {
  if (typeof value !== 'number') throw new Error(`${what}: expected an integer`)
  return value
}

function decMap(value: MsgValue, what: string): Record<string, string> {
  if (!(value instanceof Map)) throw new Error(`${what}: expected a map`)
  const out: Record<string, string> = {}
  for (const [k, v] of value) out[k] = bytesToDecimal(v, `${what}.${k}`)
  return out
}

function dec(map: MsgValue, key: string, what: string): string {
  return bytesToDecimal(field(map, key, what), `${what}.${key}`)
}

function ids(v: { schema_id: string; cred_def_id: string; rev_reg_id?: string }): [string, MsgValue][] {
  const out: [string, MsgValue][] = [
    ['schema_id', v.schema_id],
    ['cred_def_id', v.cred_def_id],
  ]
  if (v.rev_reg_id !== undefined) out.push(['rev_reg_id', v.rev_reg_id])
  return out
}

function subProofToMsg(sub: SubProof): MsgMap {
  if (sub.non_revoc_proof !== null) revocationNotSupported()
  const eq = sub.primary_proof.eq_proof
  return new Map<string, MsgValue>([
    [
      'primary_proof',
      new Map<string, MsgValue>([
        [
          'eq_proof',
          new Map<string, MsgValue>([
            ['revealed_attrs', bnMap(eq.revealed_attrs)],
            ['a_prime', bn(eq.a_prime)],
            ['e', bn(eq.e)],
            ['v', bn(eq.v)],
            ['m', bnMap(eq.m)],
            ['m2', bn(eq.m2)],
          ]),
        ],
        [
          'ge_proofs',
          sub.primary_proof.ge_proofs.map(
            (ge) =>
              new Map<string, MsgValue>([
                ['u', bnMap(ge.u)],
                ['r', bnMap(ge.r)],
                ['mj', bn(ge.mj)],
                ['alpha', bn(ge.alpha)],
                ['t', bnMap(ge.t)],
                [
                  'predicate',
                  new Map<string, MsgValue>([
                    ['attr_name', ge.predicate.attr_name],
                    ['p_type', ge.predicate.p_type],
                    ['value', ge.predicate.value],
                  ]),
                ],
              ]),
          ),
        ],
      ]),
    ],
    ['non_revoc_proof', null],
  ])
}

function subProofFromMsg(value: MsgValue): SubProof {
  if (optional(value, 'non_revoc_proof') !== undefined) revocationNotSupported()
  const primary = field(value, 'primary_proof', 'sub_proof')
  const eq = field(primary, 'eq_proof', 'primary_proof')
  const ges = field(primary, 'ge_proofs', 'primary_proof')
  if (!Array.isArray(ges)) throw new Error('primary_proof.ge_proofs: expected an array')
  return {
    primary_proof: {
      eq_proof: {
        revealed_attrs: Object.fromEntries(
          Object.entries(decMap(field(eq, 'revealed_attrs', 'eq_proof'), 'revealed_attrs')).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        ),
        a_prime: dec(eq, 'a_prime', 'eq_proof'),
        e: dec(eq, 'e', 'eq_proof'),
        v: dec(eq, 'v', 'eq_proof'),
        m: decMap(field(eq, 'm', 'eq_proof'), 'eq_proof.m'),
        m2: dec(eq, 'm2', 'eq_proof'),
      },
      ge_proofs: ges.map((ge) => {
        const predicate = field(ge, 'predicate', 'ge_proof')
        const pType = str(field(predicate, 'p_type', 'predicate'), 'predicate.p_type')
        if (!['GE', 'LE', 'GT', 'LT'].includes(pType)) throw new Error(`predicate.p_type: unknown ${pType}`)
        return {
          u: decMap(field(ge, 'u', 'ge_proof'), 'ge_proof.u'),
          r: decMap(field(ge, 'r', 'ge_proof'), 'ge_proof.r'),
          mj: dec(ge, 'mj', 'ge_proof'),
          alpha: dec(ge, 'alpha', 'ge_proof'),
          t: decMap(field(ge, 't', 'ge_proof'), 'ge_proof.t'),
          predicate: {
            attr_name: str(field(predicate, 'attr_name', 'predicate'), 'predicate.attr_name'),
            p_type: pType as 'GE' | 'LE' | 'GT' | 'LT',
            value: num(field(predicate, 'value', 'predicate'), 'predicate.value'),
          },
        }
      }),
    },
    non_revoc_proof: null,
  }
}

/** The msgpack value (`[tag, map]`) of a proof value. */
export function proofValueToMsg(proof: ProofValue): MsgValue {
  if (proof.kind === 'credentialSignature') {
    const v = proof.value
    const sig = v.signature
    if (sig.r_credential !== null) revocationNotSupported()
    const map = new Map<string, MsgValue>([
      ...ids(v),
      [
        'signature',
        new Map<string, MsgValue>([
          [
            'p_credential',
            new Map<string, MsgValue>([
              ['m_2', bn(sig.p_credential.m_2)],
              ['a', bn(sig.p_credential.a)],
              ['e', bn(sig.p_credential.e)],
              ['v', bn(sig.p_credential.v)],
            ]),
          ],
          ['r_credential', null],
        ]),
      ],
      [
        'signature_correctness_proof',
        new Map<string, MsgValue>([
          ['se', bn(v.signature_correctness_proof.se)],
          ['c', bn(v.signature_correctness_proof.c)],
        ]),
      ],
    ])
    return [1, map]
  }
  if (proof.kind === 'credentialPresentation') {
    const v = proof.value
    const entries: [string, MsgValue][] = ids(v)
    if (v.timestamp !== undefined) entries.push(['timestamp', v.timestamp])
    entries.push(['sub_proof', subProofToMsg(v.sub_proof)])
    return [2, new Map(entries)]
  }
  const agg = proof.value.aggregated
  return [
    3,
    new Map<string, MsgValue>([
      [
        'aggregated',
        new Map<string, MsgValue>([
          ['c_hash', bn(agg.c_hash)],
          ['c_list', agg.c_list],
        ]),
      ],
    ]),
  ]
}

/** Decodes the msgpack value of a proof value; throws `Error` naming the bad field. */
export function proofValueFromMsg(value: MsgValue): ProofValue {
  if (!Array.isArray(value) || value.length !== 2) throw new Error('expected tagged DataIntegrityProof')
  const [tag, map] = value as [MsgValue, MsgValue]
  const common = () => {
    const out: { schema_id: string; cred_def_id: string; rev_reg_id?: string } = {
      schema_id: str(field(map, 'schema_id', 'proof'), 'schema_id'),
      cred_def_id: str(field(map, 'cred_def_id', 'proof'), 'cred_def_id'),
    }
    const revRegId = optional(map, 'rev_reg_id')
    if (revRegId !== undefined) out.rev_reg_id = str(revRegId, 'rev_reg_id')
    return out
  }
  if (tag === 1) {
    const signature = field(map, 'signature', 'proof')
    if (
      optional(signature, 'r_credential') !== undefined ||
      optional(map, 'rev_reg') !== undefined ||
      optional(map, 'witness') !== undefined
    ) {
      revocationNotSupported()
    }
    const p = field(signature, 'p_credential', 'signature')
    const scp = field(map, 'signature_correctness_proof', 'proof')
    return {
      kind: 'credentialSignature',
      value: {
        ...common(),
        signature: {
          p_credential: {
            m_2: dec(p, 'm_2', 'p_credential'),
            a: dec(p, 'a', 'p_credential'),
            e: dec(p, 'e', 'p_credential'),
            v: dec(p, 'v', 'p_credential'),
          },
          r_credential: null,
        },
        signature_correctness_proof: { se: dec(scp, 'se', 'signature_correctness_proof'), c: dec(scp, 'c', 'signature_correctness_proof') },
      },
    }
  }
  if (tag === 2) {
    const out: CredentialPresentationProofValue = { ...common(), sub_proof: subProofFromMsg(field(map, 'sub_proof', 'proof')) }
    const timestamp = optional(map, 'timestamp')
    if (timestamp !== undefined) out.timestamp = num(timestamp, 'timestamp')
    return { kind: 'credentialPresentation', value: out }
  }
  if (tag === 3) {
    const agg = field(map, 'aggregated', 'proof')
    const cList = field(agg, 'c_list', 'aggregated')
    if (!Array.isArray(cList)) throw new Error('aggregated.c_list: expected an array')
    return {
      kind: 'presentation',
      value: {
        aggregated: {
          c_hash: dec(agg, 'c_hash', 'aggregated'),
          c_list: cList.map((entry, i) => {
            const bytes = entry instanceof Uint8Array ? [...entry] : entry
            if (!Array.isArray(bytes) || !bytes.every((b) => typeof b === 'number'))
              throw new Error(`aggregated.c_list.${i}: expected bytes`)
            return bytes as number[]
          }),
        },
      },
    }
  }
  throw new Error('unexpected tag for DataIntegrityProof')
}

/** `u` + base64url(msgpack) of a proof value (anoncreds-rs `format::base64_msgpack`). */
export function encodeProofValue(proof: ProofValue): string {
  return `u${base64UrlEncode(msgpackEncode(proofValueToMsg(proof)))}`
}

/** Decodes a `proofValue` string; throws `Error` when it is not `u` + base64url(msgpack) of a known tag. */
export function decodeProofValue(text: string): ProofValue {
  if (!text.startsWith('u')) throw new Error('proofValue must be multibase base64url (start with u)')
  return proofValueFromMsg(msgpackDecode(base64UrlDecode(text.slice(1))))
}
