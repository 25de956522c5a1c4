/** Schema migrations of the approvals object (append only; see storage/). Mirrors schema.ts. */
export const migrations: readonly string[] = [
  `CREATE TABLE requests (
    id TEXT PRIMARY KEY NOT NULL,
    tool TEXT NOT NULL,
    server TEXT,
    args TEXT NOT NULL,
    requester TEXT NOT NULL,
    requester_roles TEXT NOT NULL,
    requester_connection TEXT NOT NULL,
    approvers TEXT NOT NULL,
    status TEXT NOT NULL,
    approver TEXT,
    created_at INTEGER NOT NULL,
    resolved_at INTEGER,
    expires_at INTEGER NOT NULL,
    execution_started_at INTEGER,
    result TEXT
  );
  --> statement-breakpoint
  CREATE INDEX requests_status_expiry ON requests (status, expires_at);
  --> statement-breakpoint
  CREATE INDEX requests_requester ON requests (requester);
  --> statement-breakpoint
  CREATE TABLE transitions (
    key TEXT PRIMARY KEY NOT NULL,
    request_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    done_at INTEGER
  );
  --> statement-breakpoint
  CREATE INDEX transitions_owed ON transitions (done_at, created_at);`,
]
