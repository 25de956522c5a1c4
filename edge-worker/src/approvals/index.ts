/** The approvals Durable Object: approval requests across users; expiry by its own alarm. */
export { Approvals } from './Approvals.ts'
export type * from './types.ts'
