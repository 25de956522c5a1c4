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
  // holders() read every member and filtered the roles in JavaScript: 70-84 ms a call at 20,000
  // members. Each role a member holds is now a row of its own, found by role; admins by index.
  `CREATE TABLE member_roles (
    role TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    PRIMARY KEY (role, connection_id)
  );
  --> statement-breakpoint
  CREATE INDEX member_roles_connection ON member_roles (connection_id);
  --> statement-breakpoint
  INSERT OR IGNORE INTO member_roles (role, connection_id)
    SELECT roles.value, members.connection_id FROM members, json_each(members.roles) AS roles;
  --> statement-breakpoint
  CREATE INDEX members_admin ON members (admin, identity);`,
]
