/**
 * Reading and deleting connection records (the admin API's `/v1/connections`): the filters
 * vs-agent's controllers use, Parley's `terminated` state (a completed connection either side
 * hung up, `hangup.ts`), newest first.
 */
import type { DidCommConnectionRecord, DidCommDidExchangeRole, DidCommDidExchangeState } from '@credo-ts/didcomm'
import { found } from '../errors/index.ts'
import type { DidcommAgent } from './agent.ts'
import { isTerminated } from './hangup.ts'
import { outOfBandIdsNamingDid } from './invitations.ts'
import { newestFirst } from './records.ts'

/** A connection's state as Parley reports it: the DID Exchange state, or `terminated`. */
export type ConnectionState = DidCommDidExchangeState | 'terminated'

/** `record`'s state: `terminated` once either side hung up a completed connection, else its DID Exchange state. */
export function connectionState(record: DidCommConnectionRecord): ConnectionState {
  return isTerminated(record) ? 'terminated' : record.state
}

/**
 * Filters of `Connections.list`; every one given must match. `invitationDid` matches both sides:
 * connections made through this agent's invitations naming the DID and those made through
 * another agent's invitation naming it.
 */
export interface ConnectionFilters {
  outOfBandId?: string
  state?: ConnectionState
  role?: DidCommDidExchangeRole
  did?: string
  theirDid?: string
  threadId?: string
  invitationDid?: string
}

/** The agent's connection records. */
export class Connections {
  constructor(private readonly agent: DidcommAgent) {}

  private get records() {
    return this.agent.modules.didcomm.connections
  }

  /** Every connection matching all of `filters`, newest first. */
  async list(filters: ConnectionFilters = {}): Promise<DidCommConnectionRecord[]> {
    const { state, invitationDid, ...tags } = filters
    // Credo records `invitationDid` on the invitee's connection only: the inviter's are those of its invitations naming the DID.
    const byInvitationDid = invitationDid
      ? { $or: [{ invitationDid }, ...(await outOfBandIdsNamingDid(this.agent, invitationDid)).map((outOfBandId) => ({ outOfBandId }))] }
      : {}
    const query = { ...tags, ...byInvitationDid, ...(state && state !== 'terminated' ? { state } : {}) }
    const records = (await this.records.findAllByQuery(query)).filter((record) => !state || connectionState(record) === state)
    return newestFirst(records)
  }

  /**
   * Connection `id`.
   * @throws NotFoundError when there is none.
   */
  async get(id: string): Promise<DidCommConnectionRecord> {
    return found(await this.records.findById(id), `connection '${id}' not found`)
  }

  /**
   * Deletes the record of connection `id`; the peer is not told.
   * @throws NotFoundError when there is none.
   */
  async delete(id: string): Promise<void> {
    await this.get(id)
    await this.records.deleteById(id)
  }
}
