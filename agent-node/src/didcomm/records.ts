/** Small helpers over Credo records. */

/** `records` sorted newest first by `createdAt`, in place; returns them. */
export function newestFirst<T extends { createdAt: Date }>(records: T[]): T[] {
  return records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
}
