/**
 * Reading and deleting connection records (the admin API's `/v1/connections`): the filters
 * vs-agent's controllers use, Parley's `terminated` state (a completed connection either side
 * hung up, `hangup.ts`), newest first, whole or in pages.
 */
import type { Query } from '@credo-ts/core'
import { DidCommConnectionRecord, type DidCommDidExchangeRole, DidCommDidExchangeState } from '@credo-ts/didcomm'
import type { Page, PageRequest } from '../database/pages.ts'
import { found } from '../errors/index.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import type { DidcommAgent } from './agent.ts'
import { HUNG_UP, isTerminated } from './hangup.ts'
import { outOfBandIdsNamingDid } from './invitations.ts'
import { pageNewestFirst } from './records.ts'

/** A connection's state as Parley reports it: the DID Exchange state, or `terminated`. */
export type ConnectionState = DidCommDidExchangeState | 'terminated'

/** `record`'s state: `terminated` once either side hung up a completed connection, else its DID Exchange state. */
export function connectionState(record: DidCommConnectionRecord): ConnectionState {
  return isTerminated(record) ? 'terminated' : record.state
}

/**
 * Filters of `Connections.page`; every one given must match. `invitationDid` matches both sides:
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

/** The tag query of a `state` filter: `terminated` and `completed` tell hung-up connections apart. */
function stateQuery(state: ConnectionState): Query<DidCommConnectionRecord> {
  if (state === 'terminated') return { $and: [{ state: DidCommDidExchangeState.Completed }, HUNG_UP] }
  if (state === DidCommDidExchangeState.Completed) return { state, $not: HUNG_UP }
  return { state }
}

/** The agent's connection records. */
export class Connections {
  /** `storage`: the agent's record store, which lists a page newest first (`findNewestFirst`). */
  constructor(
    private readonly agent: DidcommAgent,
    private readonly storage: DrizzleStorageService,
  ) {}

  private get records() {
    return this.agent.modules.didcomm.connections
  }

  /** A page (`pageNewestFirst`) of the connections matching all of `filters`, newest first. */
  async page(filters: ConnectionFilters, request: PageRequest): Promise<Page<DidCommConnectionRecord>> {
    return pageNewestFirst(this.storage, this.agent.context, DidCommConnectionRecord, await this.query(filters), request)
  }

  /** `filters` as a Credo tag query. */
  private async query({ state, invitationDid, ...tags }: ConnectionFilters): Promise<Query<DidCommConnectionRecord>> {
    // Credo records `invitationDid` on the invitee's connection only: the inviter's are those of its invitations naming the DID.
    const byInvitationDid = invitationDid
      ? { $or: [{ invitationDid }, ...(await outOfBandIdsNamingDid(this.agent, invitationDid)).map((outOfBandId) => ({ outOfBandId }))] }
      : undefined
    return { $and: [tags, ...(byInvitationDid ? [byInvitationDid] : []), ...(state ? [stateQuery(state)] : [])] }
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
