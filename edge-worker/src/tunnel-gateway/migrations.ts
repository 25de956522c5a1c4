/** Schema migrations of the tunnel gateway (append only; see storage/). Mirrors schema.ts. */
export const migrations: readonly string[] = [
  `CREATE TABLE nonces (
    nonce TEXT PRIMARY KEY NOT NULL,
    expires_at INTEGER NOT NULL
  );
  --> statement-breakpoint
  CREATE INDEX nonces_expires_at ON nonces (expires_at);
  --> statement-breakpoint
  CREATE TABLE outbox (
    position INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    command_id TEXT NOT NULL UNIQUE,
    frame TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );`,
  `CREATE TABLE counters (
    name TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
  );`,
]
