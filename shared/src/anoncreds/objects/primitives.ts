import { z } from 'zod'

/** A non-negative big integer written as a decimal string (OpenSSL `BigNumber::to_dec`). */
export const decimal = z.string().regex(/^-?[0-9]+$/, 'expected a decimal integer string')

/**
 * A nonce: decimal string; anoncreds-rs also accepts a JSON integer and writes it back as string
 * (`src/data_types/nonce.rs`).
 */
export const nonce = z.union([decimal, z.number().int().nonnegative()]).transform((value) => String(value))

/** A curve group element (`GroupOrderElement`) as 64 hex digits. */
export const scalarHex = z.string().regex(/^[0-9A-Fa-f]+$/, 'expected a hex string')

/** An AMCL point string (`"1 HEX 1 HEX 2 HEX"` etc.); kept verbatim. */
export const pointString = z.string()

/** A non-empty identifier (schema id, cred def id, issuer id, ...). */
export const identifier = z.string().min(1, 'expected a non-empty identifier')

/** `Option<T>` serialised without `skip_serializing_if`: missing or null -> null, written as null. */
export function nullable<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? null)
}

/** `Option<T>` with `skip_serializing_if = "Option::is_none"`: missing or null -> omitted. */
export function skipNone<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined)
}
