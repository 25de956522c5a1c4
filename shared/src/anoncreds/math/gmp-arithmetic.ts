/**
 * GMP's modular multiplication and exponentiation on Node, through the addon in
 * `shared/native/gmp-arithmetic/` (built by `npm run build:native`, which `npm ci` runs). The
 * products of `proof/exponentiation.ts` take both from it (`useNativeArithmetic`): one GMP
 * `a * b mod n` of 2,050 bits costs about a third of BigInt's `a * b % n`, Node-API's crossing
 * included, and `mpz_powm` about 1.6 µs per exponent bit without OpenSSL's per-call key set-up
 * (bench/README.md, "anoncreds").
 *
 * Found without importing `node:` modules (`process.getBuiltinModule`), so the engine still loads
 * in workerd, which cannot load addons (there the products stay on BigInt). Where the addon was
 * not built (no C compiler or no GMP headers at install time), this returns undefined and Node
 * runs as before: BigInt, with OpenSSL's exponentiation (`opensslPower`).
 */
import { modInverse, modPow } from './bigint.ts'
import type { MulMod, NativeArithmetic } from './native-power.ts'
import { nodeBuiltin } from './node-builtin.ts'

interface GmpAddon {
  mulMod: MulMod
  powMod(base: bigint, exponent: bigint, n: bigint): bigint
  invert: NonNullable<NativeArithmetic['invert']>
  product: NonNullable<NativeArithmetic['product']>
}

/**
 * The addon in the source tree, where `npm run build:native` writes it. A function, so that
 * nothing reads `import.meta.url` where the engine is only imported (workerd, bundles).
 */
export function gmpAddonFile(): URL {
  return new URL('../../../native/gmp-arithmetic/build/gmp_arithmetic.node', import.meta.url)
}

/**
 * Where the addon may be: the source tree, then next to agent-node's bundle
 * (`agent-node/scripts/build.ts` copies it beside `main.mjs`).
 */
const addonFiles = () => [gmpAddonFile(), new URL('./gmp_arithmetic.node', import.meta.url)]

/**
 * Declared costs of `powMod`, in `mulMod` multiplications of a 2,050-bit modulus, as measured on
 * Node 20.20 (x64): 1.6 µs per exponent bit against 2.3–2.8 µs per multiplication.
 */
const COST_PER_BIT = 0.6
const COST_PER_CALL = 1

let loaded: { addon: GmpAddon | undefined } | undefined

/**
 * GMP's arithmetic, or undefined where the addon is absent (workerd, or not built). Loaded once
 * per thread. `power.pow` takes an even modulus to BigInt's `modPow` (GMP's `mpz_powm` wants an
 * odd one; every CL modulus is odd).
 */
export function gmpArithmetic(): NativeArithmetic | undefined {
  loaded ??= { addon: loadAddon() }
  const addon = loaded.addon
  if (!addon) return undefined
  return {
    mulMod: addon.mulMod,
    product: addon.product,
    // GMP wants a >= 0: a negative one goes to modInverse, which reduces it first
    invert: (a, n) => (a < 0n ? modInverse(a, n) : addon.invert(a, n)),
    power: {
      costPerBit: COST_PER_BIT,
      costPerCall: COST_PER_CALL,
      pow: (base, exponent, n) => ((n & 1n) === 0n ? modPow(base, exponent, n) : addon.powMod(base, exponent, n)),
    },
  }
}

/** The addon from the first path that loads, or undefined (no `node:module`, as in workerd, or no build). */
function loadAddon(): GmpAddon | undefined {
  try {
    const require = nodeBuiltin<{ createRequire(from: string): (id: string) => unknown }>('node:module')?.createRequire(import.meta.url)
    for (const file of require ? addonFiles() : []) {
      try {
        return require!(decodeURIComponent(file.pathname)) as GmpAddon
      } catch {
        // not at this path (or not built): try the next, then BigInt
      }
    }
  } catch {
    // a runtime without addons or file URLs: BigInt
  }
  return undefined
}
