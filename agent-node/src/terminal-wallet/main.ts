/**
 * `npm run wallet -- <invitation-url>`: a terminal DIDComm wallet. Connects to the invitation,
 * then each line typed is sent as a text message and each message received is printed.
 * Options: `--label <name>` (default "Terminal wallet"), `--data <file>` to keep the wallet in a
 * SQLite file instead of memory. `/quit` or Ctrl-D leaves.
 */
// First: registers the AnonCreds engine before anything imports Credo (see anoncreds/register.ts).
import '../anoncreds/register.ts'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import { createLogger } from '../logging/index.ts'
import { WalletPeer } from './WalletPeer.ts'

const USAGE = 'usage: npm run wallet -- <invitation-url> [--label <name>] [--data <file.sqlite>]'

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { label: { type: 'string', default: 'Terminal wallet' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  const invitationUrl = positionals[0]
  if (values.help || !invitationUrl) {
    console.log(USAGE)
    process.exit(values.help ? 0 : 2)
  }
  if (!/[?&](oob|c_i)=/.test(invitationUrl)) {
    console.error(`not an invitation URL (no oob= parameter): ${invitationUrl}\n${USAGE}`)
    process.exit(2)
  }

  const logger = createLogger(process.env.LOG_LEVEL ?? 'error', 'wallet')
  const wallet = await WalletPeer.create({ label: values.label!, databasePath: values.data, logger })
  console.log('connecting…')
  const connectionId = await wallet.connect(invitationUrl)
  const connection = await wallet.agent.modules.didcomm.connections.getById(connectionId)
  console.log(`connected to ${connection.theirLabel ?? 'the agent'}. Type a message and press Enter; /quit to leave.`)

  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: '> ' })
  wallet.onText((message) => {
    process.stdout.write(`\r\x1b[K${connection.theirLabel ?? 'agent'}: ${message.content}\n`)
    rl.prompt(true)
  })
  rl.prompt()
  for await (const line of rl) {
    const text = line.trim()
    if (text === '/quit') break
    if (text) await wallet.sendText(connectionId, text)
    rl.prompt()
  }
  rl.close()
  await wallet.stop()
  process.exit(0)
}

main().catch((error) => {
  console.error(`wallet: ${(error as Error).message}`)
  process.exit(1)
})
