/** Schema migrations of a conversation (append only; see storage/). Mirrors schema.ts. */
export const migrations: readonly string[] = [
  `CREATE TABLE conversation (
    connection_id TEXT PRIMARY KEY NOT NULL
  );
  --> statement-breakpoint
  CREATE TABLE events (
    position INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    id TEXT NOT NULL UNIQUE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    action TEXT,
    received_at INTEGER NOT NULL,
    handled_at INTEGER
  );
  --> statement-breakpoint
  CREATE INDEX events_pending ON events (handled_at, position);
  --> statement-breakpoint
  CREATE TABLE turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    event_position INTEGER NOT NULL REFERENCES events (position),
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  --> statement-breakpoint
  CREATE INDEX turns_event_position ON turns (event_position, id);`,
]
