/**
 * The environment an agent pack is resolved against: `process.env` on Node, the Worker's `env`
 * in workerd. Only non-empty strings count as set; bindings and other values are ignored.
 */
export type EnvRecord = Readonly<Record<string, unknown>>

/** The value of `name` in `env` when it is a non-empty string, else `undefined`. */
export function envValue(env: EnvRecord, name: string): string | undefined {
  const value = env[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** What an environment variable name may look like (letters, digits, `_`; not a digit first). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
