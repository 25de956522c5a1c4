/**
 * Spec section `integrations`: free-form settings handed to tools. `agent` (the agent's admin URL
 * and statistics queue) and `sqldb` (a SQL database) are the two named keys; any other key is
 * kept as written.
 */
import { z } from 'zod'

/** `integrations`. */
export const IntegrationsSection = z.looseObject(
  {
    agent: z
      .unknown()
      .optional()
      .describe('Admin URL of the agent and statistics queue settings (enabled, host, port, queue, username, password).'),
    sqldb: z.unknown().optional().describe('SQL database: host, user, password, dbName.'),
  },
  { error: 'expected a mapping' },
)
