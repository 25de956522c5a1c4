/**
 * Arithmetic modulo the CL modulus n: public (plain exponentiation) or, for the issuer who knows
 * the factors, through CRT (`modPowCrt`, about 3x faster). Exponentiations run on the native
 * power where agent-node installed one (`power`, `proof/exponentiation.ts`), else on BigInt.
 */
import { mod, modInverse, modPowCrt } from '../math/index.ts'
import { power } from '../proof/exponentiation.ts'
import { NotInvertibleError } from './errors.ts'

/** Exponentiation and inverses modulo n. */
export interface Modulus {
  readonly n: bigint
  /** `base^exponent mod n`; a negative exponent uses the inverse of `base`. @throws when not invertible. */
  pow(base: bigint, exponent: bigint): bigint
  /** `value^-1 mod n`. @throws NotInvertibleError when `value` is not a unit. */
  inverse(value: bigint): bigint
}

function invert(value: bigint, n: bigint): bigint {
  try {
    return modInverse(value, n)
  } catch {
    throw new NotInvertibleError('value is not invertible modulo n')
  }
}

/** Arithmetic modulo a public n (holder and verifier side). */
export function publicModulus(n: bigint): Modulus {
  return {
    n,
    pow: (base, exponent) => (exponent < 0n ? power(invert(base, n), -exponent, n) : power(base, exponent, n)),
    inverse: (value) => invert(value, n),
  }
}

/**
 * Arithmetic modulo n = (2p'+1)(2q'+1) with the factors known (issuer side): exponentiations go
 * through CRT. `pPrime`, `qPrime` are the stored private key values p', q'.
 */
export function privateModulus(pPrime: bigint, qPrime: bigint): Modulus & { readonly order: bigint } {
  const p = 2n * pPrime + 1n
  const q = 2n * qPrime + 1n
  const n = p * q
  const qInvModP = modInverse(q, p)
  const crt = (base: bigint, exponent: bigint): bigint => modPowCrt(mod(base, n), exponent, p, q, qInvModP, power)
  return {
    n,
    /** p'q': the order of the group of quadratic residues modulo n. */
    order: pPrime * qPrime,
    pow: (base, exponent) => (exponent < 0n ? crt(invert(base, n), -exponent) : crt(base, exponent)),
    inverse: (value) => invert(value, n),
  }
}
