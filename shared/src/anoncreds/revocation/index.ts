/**
 * Verifier side of AnonCreds v1 non-revocation proofs (CL accumulator, anoncreds-clsignatures-rs):
 * AMCL's BN254 curve and its optimal-ate pairing, the AMCL string and byte encodings, and the
 * tau values a verifier recomputes for c_hash. Holder-side proving, witnesses and registry
 * updates are not here.
 */
export { BN_X_ABS, fields, finalExponentiate, Fr, G1, G2, gtPow, P, R, type G1Point, type G2Point, type GtElement } from './curve.ts'
export { isGtOne, millerLoop, pair, pair2 } from './pairing.ts'
export {
  G1_BYTES,
  G2_BYTES,
  g1From,
  g1FromString,
  g1ToBytes,
  g1ToString,
  g2From,
  g2FromString,
  g2ToBytes,
  g2ToString,
  GT_BYTES,
  gtFromString,
  gtToBytes,
  gtToString,
  RevocationFormatError,
  SCALAR_BYTES,
  scalarFrom,
} from './encoding.ts'
export {
  nonRevocationSubProof,
  nonRevocationTaus,
  nonRevocationTauValues,
  parseNonRevocationProof,
  parseRevocationKey,
  type CredentialRevocationPublicKey,
  type NonRevocationChallenge,
  type NonRevocationProofJson,
  type ParsedNonRevocationProof,
  type RevocationKey,
  type RevocationRegistryPublicKey,
} from './taus.ts'
