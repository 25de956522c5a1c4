/**
 * Small operations on the raw manifest value (plain JSON-like data) addressed by paths such as
 * `['llm', 'temperature']`, shown to operators as `llm.temperature`.
 */
export type Mapping = Record<string, unknown>
export type TreePath = readonly PropertyKey[]

/** True for a plain object (a YAML/JSON mapping), false for arrays, null and scalars. */
export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `['languages', 'en', 'strings', 'X']` → `languages.en.strings.X`; the root is `(manifest)`. */
export function formatPath(path: TreePath): string {
  return path.length === 0 ? '(manifest)' : path.map(String).join('.')
}

/** The value at `path`, or `undefined` when any step is missing. */
export function valueAt(root: unknown, path: TreePath): unknown {
  let node = root
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined
    node = (node as Record<PropertyKey, unknown>)[key]
  }
  return node
}

/**
 * Deletes the value at `path` (an array element is spliced out).
 * @returns false when there was nothing to delete.
 */
export function removeAt(root: unknown, path: TreePath): boolean {
  const parent = valueAt(root, path.slice(0, -1))
  const key = path.at(-1)
  if (key === undefined || typeof parent !== 'object' || parent === null) return false
  if (Array.isArray(parent) && typeof key === 'number' && key < parent.length) {
    parent.splice(key, 1)
    return true
  }
  if (!Object.hasOwn(parent, key)) return false
  delete (parent as Record<PropertyKey, unknown>)[key]
  return true
}
