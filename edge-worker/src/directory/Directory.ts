/**
 * The user directory: which connections each authenticated identity is on, and its roles, so a
 * later feature (approvals) can reach a user on all their devices. An identity authenticated on
 * two connections is one user with two connections. One object per Worker
 * (`DIRECTORY.idFromName('directory')`), reached through bindings.ts `directory(env)`; the
 * conversation objects keep it current when a user logs in or out.
 */
import { DurableObject } from 'cloudflare:workers'
import { asc, eq, inArray, or } from 'drizzle-orm'
import type { Env } from '../env.ts'
import { openDatabase, type Database } from '../storage/index.ts'
import { migrations } from './migrations.ts'
import { memberRoles, members, schema } from './schema.ts'

/** One user of the directory. */
export interface DirectoryUser {
  identity: string
  /** Union of the roles presented on each connection, in first-seen order. */
  roles: string[]
  /** An admin (adminUsers / adminAvatars) on any of its connections. */
  admin: boolean
  /** Connections the identity is authenticated on, oldest first. */
  connectionIds: string[]
}

/** Durable Object holding the directory. RPC: `signIn`, `signOut`, `user`, `holders`. */
export class Directory extends DurableObject<Env> {
  private readonly db: Database<typeof schema>

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.db = openDatabase(ctx, schema, migrations)
  }

  /** Records that `principal` is authenticated on `connectionId` (replacing whoever was before on it). Idempotent. */
  async signIn(connectionId: string, principal: { identity: string; roles: string[]; admin: boolean }, now = Date.now()): Promise<void> {
    const { identity, roles, admin } = principal
    this.db.transaction((tx) => {
      tx.insert(members)
        .values({ connectionId, identity, roles, admin, since: now })
        .onConflictDoUpdate({ target: members.connectionId, set: { identity, roles, admin, since: now } })
        .run()
      tx.delete(memberRoles).where(eq(memberRoles.connectionId, connectionId)).run()
      if (roles.length > 0)
        tx.insert(memberRoles)
          .values(roles.map((role) => ({ role, connectionId })))
          .onConflictDoNothing()
          .run()
    })
  }

  /** Records that nobody is authenticated on `connectionId` any more. Idempotent. */
  async signOut(connectionId: string): Promise<void> {
    this.db.transaction((tx) => {
      tx.delete(memberRoles).where(eq(memberRoles.connectionId, connectionId)).run()
      tx.delete(members).where(eq(members.connectionId, connectionId)).run()
    })
  }

  /** The user `identity`, or null when it is authenticated nowhere. */
  async user(identity: string): Promise<DirectoryUser | null> {
    const rows = this.db
      .select()
      .from(members)
      .where(eq(members.identity, identity))
      .orderBy(asc(members.since), asc(members.connectionId))
      .all()
    return usersOf(rows)[0] ?? null
  }

  /**
   * The users holding one of `roles`, and the admins (who bypass every role check), each with all
   * their connections: who is told of an approval request (the approvers). Ordered by identity.
   */
  async holders(roles: string[]): Promise<DirectoryUser[]> {
    return usersOf(holdersQuery(this.db, roles).all())
  }
}

/**
 * The member rows of every identity that presented one of `roles`, or was an admin, on any of its
 * connections, ordered by identity, then age. Read through `member_roles` and the `members_admin`
 * index: the cost follows the holders, not the size of the directory.
 */
export function holdersQuery(db: Database<typeof schema>, roles: string[]) {
  const holding = db
    .select({ identity: members.identity })
    .from(memberRoles)
    .innerJoin(members, eq(members.connectionId, memberRoles.connectionId))
    .where(inArray(memberRoles.role, roles))
  const admins = db.select({ identity: members.identity }).from(members).where(eq(members.admin, true))
  return db
    .select()
    .from(members)
    .where(or(inArray(members.identity, holding), inArray(members.identity, admins)))
    .orderBy(asc(members.identity), asc(members.since), asc(members.connectionId))
}

/** The users of `rows` (already ordered by identity, then age), in that order. */
function usersOf(rows: (typeof members.$inferSelect)[]): DirectoryUser[] {
  const byIdentity = new Map<string, (typeof members.$inferSelect)[]>()
  for (const row of rows) byIdentity.set(row.identity, [...(byIdentity.get(row.identity) ?? []), row])
  return [...byIdentity].map(([identity, own]) => ({
    identity,
    roles: [...new Set(own.flatMap((row) => row.roles))],
    admin: own.some((row) => row.admin),
    connectionIds: own.map((row) => row.connectionId),
  }))
}
