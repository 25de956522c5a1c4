/**
 * The one uniqueness check of lists validated with zod: the DIDComm message bodies (menu options,
 * proof items) and the agent pack's lists (menu items, MCP servers, tools).
 */
import type { z } from 'zod'

/** Issue parameter of a repeated key: the position of the entry that holds it first. */
export const DUPLICATE_OF = 'duplicateOf'

/**
 * Refinement for an array of objects whose `key` must be unique: each entry repeating an earlier
 * entry's key is an issue at `<index>.<key>` (so an error names the exact entry) with the message
 * `duplicate <key> '<value>' (<why>)`, `why` saying what relies on uniqueness, and the earlier
 * entry's position in its params (`DUPLICATE_OF`).
 */
export function uniqueBy<K extends string>(key: K, why: string) {
  return (items: readonly Record<K, unknown>[], ctx: z.RefinementCtx) => {
    const first = new Map<unknown, number>()
    items.forEach((item, index) => {
      const value = item[key]
      const earlier = first.get(value)
      if (earlier === undefined) first.set(value, index)
      else
        ctx.addIssue({
          code: 'custom',
          path: [index, key],
          input: value,
          message: `duplicate ${key} '${String(value)}' (${why})`,
          params: { [DUPLICATE_OF]: earlier },
        })
    })
  }
}
