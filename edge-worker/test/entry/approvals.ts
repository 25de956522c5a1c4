/** The production approvals object, running the tools as the test entry's conversations see them (access.ts). */
import { Approvals as ProductionApprovals } from '../../src/approvals/index.ts'
import type { Tool } from '../../src/tools/types.ts'
import { withTestAccess } from './access.ts'

export class Approvals extends ProductionApprovals {
  protected override async tools(): Promise<readonly Tool[]> {
    return withTestAccess(await super.tools(), this.env)
  }
}
