/**
 * One presentation request the agent made, beside Credo's proof exchange record (same id): what
 * was requested item by item, where it came from, and, for invitation flows, the controller's
 * `ref` and `callbackUrl` and the last status reported to it.
 */
import { BaseRecord } from '@credo-ts/core'
import type { Claim, Predicate } from '@parley/shared'
import type { PresentationStatus } from './outcome.ts'

type PresentationFlowTags = { outOfBandId?: string; origin: PresentationFlowOrigin; callbackPending: boolean }

/** One status report owed to the callback (the body POSTed adds the flow's `ref` and `proofExchangeId`). */
export interface CallbackUpdate {
  status: PresentationStatus
  claims?: Claim[]
  /** The predicates the verified presentation proved (with `ok`, when any was requested). */
  predicates?: Predicate[]
  reason?: string
}

/** `invitation`: `POST /v1/presentation-request`; `message`: an `identity-proof-request` message. */
export type PresentationFlowOrigin = 'invitation' | 'message'

/**
 * One requested credential: its definition, the attributes to reveal (possibly none) and the
 * predicates to prove; `id` names it in results.
 */
export interface RequestedCredential {
  id: string
  credentialDefinitionId: string
  attributes: string[]
  predicates?: Predicate[]
}

export interface PresentationFlowProps {
  /** The Credo proof exchange id (also `proofExchangeId` in the API). */
  id: string
  origin: PresentationFlowOrigin
  requestedCredentials: RequestedCredential[]
  outOfBandId?: string
  ref?: string
  callbackUrl?: string
}

export class PresentationFlowRecord extends BaseRecord<PresentationFlowTags> {
  static override readonly type = 'ParleyPresentationFlow'
  override readonly type = PresentationFlowRecord.type

  origin!: PresentationFlowOrigin
  requestedCredentials!: RequestedCredential[]
  outOfBandId?: string
  ref?: string
  callbackUrl?: string
  /** The last status reported (invitation flows); none before the first. */
  status?: PresentationStatus
  /**
   * Reports stored and not yet handed to the event outbox, oldest first: each is added in the
   * same write as the status it reports and removed once it is in the outbox (`callbacks.ts`
   * delivers it from there).
   */
  pendingCallbacks?: CallbackUpdate[]

  constructor(props?: PresentationFlowProps) {
    super()
    if (props) {
      this.createdAt = new Date()
      Object.assign(this, props)
    }
  }

  getTags(): PresentationFlowTags {
    return { ...this._tags, outOfBandId: this.outOfBandId, origin: this.origin, callbackPending: (this.pendingCallbacks?.length ?? 0) > 0 }
  }
}
