import { E_START_BITS } from '../issuance/constants.ts'

/**
 * Sizes (in bits) of the CL proof's random values, as anoncreds-clsignatures-rs
 * (`src/constants.rs`) draws them; AnonCreds specification, "Generate Presentation".
 */

/** ẽ: blinding of e' = e − 2^596. */
export const E_TILDE_BITS = 456
/** ṽ: blinding of v' = v − e·r. */
export const V_TILDE_BITS = 3060
/** m̃: blinding of each hidden attribute, the link secret included (LARGE_MVECT). */
export const M_TILDE_BITS = 592
/** m̃2: blinding of the credential context m2. */
export const M2_TILDE_BITS = 2432
/** r: randomisation of A (Â = A·S^r), and the r_i, r_Δ of the predicate commitments. */
export const R_BITS = 2128
/** ũ: blinding of the four squares of a predicate. */
export const U_TILDE_BITS = 592
/** r̃: blinding of the r_i, r_Δ of a predicate. */
export const R_TILDE_BITS = 672
/** α̃: blinding of α = r_Δ − Σ u_i·r_i. */
export const ALPHA_TILDE_BITS = 2787
/** e is a prime in [2^E_START_BITS, …) (issuance/constants.ts); the proof works on e' = e − 2^E_START_BITS. */
export const E_START = 1n << BigInt(E_START_BITS)
/** Keys of the four squares in a predicate proof's `u`, `r`, `t` maps. */
export const SQUARE_KEYS = ['0', '1', '2', '3'] as const
/** Key of the Δ commitment in a predicate proof's `r` and `t` maps. */
export const DELTA_KEY = 'DELTA'
