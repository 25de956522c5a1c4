import type { Schema } from '../database/dialect.ts'

/**
 * The cluster's table (`applySchema`, `agent-node/src/database/README.md`, "Migrations"):
 * `cluster_leases`, one row per lease: `name` (`instance:<id>`, `delivery:<subscriber>`,
 * `public-did`, `recovery`), the `holder` (an instance id) and `expires_at` (epoch milliseconds, the holder's
 * clock). A lease is held while `expires_at` is in the future; after that anyone may take it.
 * Append new steps; never edit a released one.
 */
export const LEASES_SCHEMA: Schema = {
  name: 'cluster_leases',
  steps: [
    [
      `CREATE TABLE cluster_leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
    ],
  ],
}
