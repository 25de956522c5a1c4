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
  // Flows decide what an event needs when it is handled: the stored `action` goes; the session,
  // the effect log (commands owed, sent with key `<event id>:<step>`) and tool-call records come.
  `ALTER TABLE events DROP COLUMN action;
  --> statement-breakpoint
  ALTER TABLE turns ADD COLUMN tool TEXT;
  --> statement-breakpoint
  CREATE TABLE session (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    data TEXT NOT NULL
  );
  --> statement-breakpoint
  CREATE TABLE effects (
    position INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    command_id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    sent_at INTEGER
  );
  --> statement-breakpoint
  CREATE INDEX effects_unsent ON effects (sent_at, position);`,
  // The kvstore memory window reads the messages of the events before one by `seq` (memory.ts):
  // without an index on it, every turn scanned the whole conversation record.
  `CREATE INDEX events_seq ON events (seq);`,
]
