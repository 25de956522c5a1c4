/**
 * agent-node's entry point: reads the configuration, starts the agent, prints the start-up line
 * (spec: agent, version, public port, admin port) and stops cleanly on SIGINT/SIGTERM. What slips
 * past every socket's own error handling meets the last-resort handlers (`process/last-resort.ts`).
 */
// First: registers the AnonCreds engine before anything imports Credo (see anoncreds/register.ts).
import { anoncredsArithmetic } from './anoncreds-registry/register.ts'
import { ConfigError, loadConfig } from './config/index.ts'
import { createLogger, createStartupFailureLogger } from './logging/index.ts'
import { installLastResortHandlers } from './process/last-resort.ts'
import { BUILD, startAgentNode } from './app.ts'

/** Start-up failures are logged whatever LOG_LEVEL says, on stderr. */
const failures = createStartupFailureLogger()

async function main(): Promise<void> {
  let loaded: ReturnType<typeof loadConfig>
  try {
    loaded = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      failures.fatal({ problems: error.problems }, `agent-node: ${error.message}`)
      process.exit(2)
    }
    throw error
  }
  const { config, notices } = loaded
  const logger = createLogger(config.logLevel)
  for (const notice of notices) logger.warn(notice)
  installLastResortHandlers(logger)

  const node = await startAgentNode(config, logger)
  const { publicPort, adminPort, publicDid } = node
  logger.info(
    { label: config.label, ...BUILD, publicPort, adminPort, adminHost: config.adminHost, publicDid, anoncredsArithmetic },
    `${config.label} (${BUILD.name} ${BUILD.version}) public port ${publicPort}, admin port ${adminPort} on ${config.adminHost}, public DID ${publicDid}`,
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping')
    await node.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

// A failed start-up has closed what it opened (startAgentNode): the process ends by itself once
// nothing is left, so a handle left open would show as a process that never exits.
main().catch((error) => {
  failures.fatal({ err: error }, 'agent-node failed to start')
  process.exitCode = 1
})
