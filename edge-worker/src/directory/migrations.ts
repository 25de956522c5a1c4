/** Schema migrations of the directory (append only; see storage/). Mirrors schema.ts. */
export const migrations: readonly string[] = [
  `CREATE TABLE members (
    connection_id TEXT PRIMARY KEY NOT NULL,
    identity TEXT NOT NULL,
    roles TEXT NOT NULL,
    admin INTEGER NOT NULL,
    since INTEGER NOT NULL
  );
  --> statement-breakpoint
  CREATE INDEX members_identity ON members (identity);`,
]
