/**
 * States that only move forward: a status report, a delivery state. The states are given as
 * stages, earliest first; states of one stage stand level (a move between them is not forward),
 * so a late or repeated report never takes a record back or sideways.
 */
export class ForwardOnly<S extends string> {
  private readonly rank = new Map<S, number>()

  /**
   * @param stages every state, by stage, earliest first (e.g. `[['created'], ['sent', 'errored'], …]`).
   * @throws when a state is named twice.
   */
  constructor(stages: readonly (readonly S[])[]) {
    stages.forEach((stage, index) => {
      for (const state of stage) {
        if (this.rank.has(state)) throw new Error(`state '${state}' is named twice`)
        this.rank.set(state, index)
      }
    })
  }

  /** Whether moving from `from` (undefined: no state yet) to `to` goes to a later stage. */
  advances(from: S | undefined, to: S): boolean {
    return from === undefined || this.stage(to) > this.stage(from)
  }

  private stage(state: S): number {
    const stage = this.rank.get(state)
    if (stage === undefined) throw new Error(`unknown state '${state}'`)
    return stage
  }
}
