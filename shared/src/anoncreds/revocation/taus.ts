/**
 * The verifier's non-revocation tau values (anoncreds-clsignatures-rs
 * `ProofVerifier::_verify_non_revocation_proof` with helpers `create_tau_list_expected_values`
 * and `create_tau_list_values`; AnonCreds specification, "Non-revocation proof"). With
 * c = −c_hash mod r and m₂ = (primary m̂₂) mod r:
 *   T̂1 = E·c + h·ρ + h̃·o                          T̂2 = E·c_x − h·m − h̃·t
 *   T̂3 = e(h0 + G, ĥ)^c·e(−A, y)^c · e(A·c_x + h̃·(r − m) − h1·m₂ − h2·s, ĥ)·e(−h̃·ρ, y)
 *   T̂4 = (e(G, acc)·e(−g, W)/z)^c · e(h̃·r, acc)·e(−g·r′, ĥ)
 *   T̂5 = D·c + g·r + h̃·o′                         T̂6 = D·r″ − g·m′ − h̃·t′
 *   T̂7 = (e(pk + G, S)·e(−g, g′))^c · e((pk + G)·r″ − h̃·m′, ĥ)·e(h̃·r, S)
 *   T̂8 = (e(G, u)·e(−g, U))^c · e(h̃·r, u)·e(−g·r‴, ĥ)
 * (x_list: ρ, o, c_x, m, t, r, r′, r″, r‴, o′, m′, t′, s; c_list: E, D, A, G, W, S, U.)
 * They enter c_hash as `to_bytes` (G1 128 bytes, GT 512 bytes), before the sub-proof's primary
 * taus. A legacy proof's `x_list.m2` is ignored, as anoncreds-clsignatures-rs does unless told to
 * accept legacy proofs.
 */
import { fields, R, gtPow, type G1Point, type G2Point, type GtElement } from './curve.ts'
import { g1From, g1ToBytes, g2From, g2ToBytes, gtFromString, gtToBytes, RevocationFormatError, scalarFrom } from './encoding.ts'
import { pair2 } from './pairing.ts'

/** `credentialDefinition.value.revocation`: the credential's revocation public key (AMCL strings). */
export interface CredentialRevocationPublicKey {
  g: string
  g_dash: string
  h: string
  h0: string
  h1: string
  h2: string
  htilde: string
  h_cap: string
  u: string
  pk: string
  y: string
}

/** `revocationRegistryDefinition.value.publicKeys.accumKey`: `{ z }`, a GT element. */
export interface RevocationRegistryPublicKey {
  z: string
}

/**
 * `non_revoc_proof` of a sub-proof: `x_list` scalars (hex strings in JSON, 32 bytes in msgpack)
 * and `c_list` points (AMCL strings in JSON, `to_bytes` in msgpack).
 */
export interface NonRevocationProofJson {
  x_list: Record<string, unknown>
  c_list: Record<string, unknown>
}

/** The challenge-side inputs: the proof's c_hash and the sub-proof's primary m̂₂. */
export interface NonRevocationChallenge {
  cHash: bigint
  m2: bigint
}

const X_KEYS = [
  'rho',
  'r',
  'r_prime',
  'r_prime_prime',
  'r_prime_prime_prime',
  'o',
  'o_prime',
  'm',
  'm_prime',
  't',
  't_prime',
  's',
  'c',
] as const
const C_G1_KEYS = ['e', 'd', 'a', 'g'] as const
const C_G2_KEYS = ['w', 's', 'u'] as const

/** The revocation public key's points. */
export interface RevocationKey {
  g: G1Point
  gDash: G2Point
  h: G1Point
  h0: G1Point
  h1: G1Point
  h2: G1Point
  htilde: G1Point
  hCap: G2Point
  u: G2Point
  pk: G1Point
  y: G2Point
}

/**
 * The revocation public key's points from its JSON.
 * @throws RevocationFormatError when a member is missing or invalid.
 */
export function parseRevocationKey(json: unknown): RevocationKey {
  const k = asRecord(json, 'revocation public key')
  const one = (name: string) => g1From(k[name], `revocation.${name}`)
  const two = (name: string) => g2From(k[name], `revocation.${name}`)
  return {
    g: one('g'),
    gDash: two('g_dash'),
    h: one('h'),
    h0: one('h0'),
    h1: one('h1'),
    h2: one('h2'),
    htilde: one('htilde'),
    hCap: two('h_cap'),
    u: two('u'),
    pk: one('pk'),
    y: two('y'),
  }
}

/** A parsed `non_revoc_proof`. */
export interface ParsedNonRevocationProof {
  x: Record<(typeof X_KEYS)[number], bigint>
  e: G1Point
  d: G1Point
  a: G1Point
  g: G1Point
  w: G2Point
  s: G2Point
  u: G2Point
  /** The c_list points as `to_bytes`, in anoncreds-rs `as_list` order (E, D, A, G, W, S, U). */
  cListBytes: Uint8Array[]
}

/**
 * A `non_revoc_proof` (JSON or msgpack form) parsed and validated.
 * @throws RevocationFormatError when a member is missing or invalid.
 */
export function parseNonRevocationProof(json: unknown): ParsedNonRevocationProof {
  const proof = asRecord(json, 'non_revoc_proof')
  const xList = asRecord(proof.x_list, 'non_revoc_proof.x_list')
  const cList = asRecord(proof.c_list, 'non_revoc_proof.c_list')
  const x = Object.fromEntries(X_KEYS.map((k) => [k, scalarFrom(xList[k], `non_revoc_proof.x_list.${k}`)])) as ParsedNonRevocationProof['x']
  const [e, d, a, g] = C_G1_KEYS.map((k) => g1From(cList[k], `non_revoc_proof.c_list.${k}`)) as [G1Point, G1Point, G1Point, G1Point]
  const [w, s, u] = C_G2_KEYS.map((k) => g2From(cList[k], `non_revoc_proof.c_list.${k}`)) as [G2Point, G2Point, G2Point]
  return { x, e, d, a, g, w, s, u, cListBytes: [...[e, d, a, g].map(g1ToBytes), ...[w, s, u].map(g2ToBytes)] }
}

/**
 * T̂1…T̂8 of one non-revocation sub-proof as the byte strings anoncreds-rs hashes, in its order.
 * `proof` is the sub-proof's `non_revoc_proof`, `revocationPublicKey` the credential
 * definition's `value.revocation`, `registryPublicKey` the registry definition's
 * `value.publicKeys.accumKey`, `accumulator` the status list's `currentAccumulator` (a G2 AMCL
 * string); `challenge` the proof's c_hash and this sub-proof's primary `eq_proof.m2`.
 * @throws RevocationFormatError when an input is malformed or not a valid group element.
 */
export function nonRevocationTaus(
  proof: unknown,
  revocationPublicKey: unknown,
  registryPublicKey: unknown,
  accumulator: unknown,
  challenge: NonRevocationChallenge,
): Uint8Array[] {
  return nonRevocationSubProof(proof, revocationPublicKey, registryPublicKey, accumulator, challenge).taus
}

/**
 * `nonRevocationTaus` together with the proof's c_list points as `to_bytes` (E, D, A, G, W, S, U,
 * the order they take in the aggregated c_list), parsing the inputs once.
 * @throws RevocationFormatError when an input is malformed or not a valid group element.
 */
export function nonRevocationSubProof(
  proof: unknown,
  revocationPublicKey: unknown,
  registryPublicKey: unknown,
  accumulator: unknown,
  challenge: NonRevocationChallenge,
): { taus: Uint8Array[]; cList: Uint8Array[] } {
  const key = parseRevocationKey(revocationPublicKey)
  const z = gtFromString(asRecord(registryPublicKey, 'registry public key').z, 'accumKey.z')
  const acc = g2From(accumulator, 'accumulator')
  const parsed = parseNonRevocationProof(proof)
  const { g1, gt } = nonRevocationTauValues(parsed, key, z, acc, challenge)
  const [t1, t2, t5, t6] = g1.map(g1ToBytes) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array]
  const [t3, t4, t7, t8] = gt.map(gtToBytes) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array]
  return { taus: [t1, t2, t3, t4, t5, t6, t7, t8], cList: parsed.cListBytes }
}

/** The tau values as group elements: G1 (T̂1, T̂2, T̂5, T̂6) and GT (T̂3, T̂4, T̂7, T̂8). */
export function nonRevocationTauValues(
  proof: ParsedNonRevocationProof,
  key: RevocationKey,
  z: GtElement,
  acc: G2Point,
  challenge: NonRevocationChallenge,
): { g1: [G1Point, G1Point, G1Point, G1Point]; gt: [GtElement, GtElement, GtElement, GtElement] } {
  const F = fields.Fp12
  const c = mod(-mod(challenge.cHash))
  const m2 = mod(challenge.m2)
  const { x, e, d, a, g: bigG, w, s, u } = proof
  const mul = (point: G1Point, k: bigint) => point.multiplyUnsafe(mod(k))
  const { g, h, htilde, hCap } = key
  const pkG = key.pk.add(bigG)

  const t1 = mul(e, c).add(mul(h, x.rho).add(mul(htilde, x.o)))
  const t2 = mul(e, x.c).subtract(mul(h, x.m)).subtract(mul(htilde, x.t))
  const t5 = mul(d, c).add(mul(g, x.r).add(mul(htilde, x.o_prime)))
  const t6 = mul(d, x.r_prime_prime).subtract(mul(g, x.m_prime)).subtract(mul(htilde, x.t_prime))

  const htildeR = mul(htilde, x.r)
  const t3 = F.mul(
    gtPow(pair2(key.h0.add(bigG), hCap, a.negate(), key.y), c),
    pair2(
      mul(a, x.c)
        .add(mul(htilde, x.r - x.m))
        .subtract(mul(key.h1, m2))
        .subtract(mul(key.h2, x.s)),
      hCap,
      mul(htilde, x.rho).negate(),
      key.y,
    ),
  )
  const t4 = F.mul(gtPow(F.mul(pair2(bigG, acc, g.negate(), w), F.inv(z)), c), pair2(htildeR, acc, mul(g, x.r_prime).negate(), hCap))
  const t7 = F.mul(
    gtPow(pair2(pkG, s, g.negate(), key.gDash), c),
    pair2(mul(pkG, x.r_prime_prime).subtract(mul(htilde, x.m_prime)), hCap, htildeR, s),
  )
  const t8 = F.mul(gtPow(pair2(bigG, key.u, g.negate(), u), c), pair2(htildeR, key.u, mul(g, x.r_prime_prime_prime).negate(), hCap))
  return { g1: [t1, t2, t5, t6], gt: [t3, t4, t7, t8] }
}

function mod(k: bigint): bigint {
  const v = k % R
  return v < 0n ? v + R : v
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RevocationFormatError(`${what}: expected an object`)
  return value as Record<string, unknown>
}
