/** Bit sizes of the issuance values (anoncreds-clsignatures `constants.rs`). */

/** v': the holder's blinding of the link secret in U. */
export const V_PRIME_BITS = 2128
/** ṽ' in the blinded-secrets correctness proof. */
export const V_PRIME_TILDE_BITS = 673
/** m̃ of each hidden attribute in the blinded-secrets correctness proof. */
export const M_TILDE_BITS = 593
/** v'': the issuer's part of v, top bit set. */
export const V_PRIME_PRIME_BITS = 2724
/** e is a prime in [2^E_START_BITS, 2^E_START_BITS + 2^E_RANGE_BITS). */
export const E_START_BITS = 596
export const E_RANGE_BITS = 119
