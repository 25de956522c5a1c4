/**
 * CL proofs of AnonCreds v1 (primary equality and predicate sub-proofs, aggregated under one
 * challenge): `createProof` for holders, `verifyProof` for verifiers. Non-revocation sub-proofs
 * are not implemented yet.
 */
export { createProof, PredicateNotSatisfiedError, type CreateProofInput, type ProverSubProof } from './prove.ts'
export { verifyProof, type VerifierRevocation, type VerifierSubProof, type VerifyProofInput } from './verify.ts'
export { ProofFormatError } from './parse.ts'
export { parseSubProof, type ParsedSubProof } from './parse-proof.ts'
export { primaryKey } from './key.ts'
export { equalityTau, predicateTaus } from './taus.ts'
export { challengeHash } from './challenge.ts'
export { batchInverse, FixedBase, PowerProduct, useNativeArithmetic } from './exponentiation.ts'
export type * from './types.ts'
