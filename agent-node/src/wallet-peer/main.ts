/**
 * `npm run wallet -- <invitation-url>`: a terminal DIDComm wallet. Connects to the invitation,
 * then each line typed is sent as a text message and each message received is printed; menus
 * (question-answer) and the contextual menu (action-menu) are printed numbered.
 * Options: `--label <name>` (default "Terminal wallet"), `--data <file>` to keep the wallet in a
 * SQLite file instead of memory. Commands: `/pick <n>` answers the last menu, `/menu` asks for
 * the contextual menu, `/do <n>` performs one of its options, `/hangup` ends the connection,
 * `/quit` or Ctrl-D leaves.
 */
// First: registers the AnonCreds engine before anything imports Credo (see anoncreds/register.ts).
import '../anoncreds-registry/register.ts'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import {
  QuestionAnswerEventTypes,
  QuestionAnswerRole,
  QuestionAnswerState,
  type QuestionAnswerRecord,
  type QuestionAnswerStateChangedEvent,
} from '@credo-ts/question-answer'
import {
  ActionMenuEventTypes,
  ActionMenuRole,
  ActionMenuState,
  type ActionMenu,
  type ActionMenuStateChangedEvent,
} from '../didcomm/protocols/action-menu/index.ts'
import { createLogger } from '../logging/index.ts'
import { type ReceivedText, WalletPeer } from './WalletPeer.ts'

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
  // Every form the agent prints: a long `?oob=` URL, a short URL (`/s?id=`) or the invitation
  // page (`/invitation`); Credo fetches the last two and follows their redirect.
  if (!URL.canParse(invitationUrl) || !/^(https?|didcomm):$/.test(new URL(invitationUrl).protocol)) {
    console.error(`not an invitation URL (http(s) or didcomm): ${invitationUrl}\n${USAGE}`)
    process.exit(2)
  }

  const logger = createLogger(process.env.LOG_LEVEL ?? 'error', 'wallet')
  const wallet = await WalletPeer.create({ label: values.label!, databasePath: values.data, logger })
  console.log('connecting…')
  // The agent may greet the instant the connection completes, before `connect` resolves: texts
  // that come before the prompt is ready wait here and are shown first.
  const early: ReceivedText[] = []
  let show: ((message: ReceivedText) => void) | undefined
  wallet.onText((message) => (show ? show(message) : early.push(message)))
  const connectionId = await wallet.connect(invitationUrl)
  const connection = await wallet.agent.modules.didcomm.connections.getById(connectionId)
  console.log(`connected to ${connection.theirLabel ?? 'the agent'}. Type a message and press Enter; /quit to leave.`)

  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: '> ' })
  const say = (text: string) => {
    process.stdout.write(`\r\x1b[K${text}\n`)
    rl.prompt(true)
  }
  const numbered = (items: string[], command: string) => [...items.map((item, i) => `  ${i + 1}. ${item}`), `  (${command} <n>)`].join('\n')
  show = (message) => {
    if (message.connectionId === connectionId) say(`${connection.theirLabel ?? 'agent'}: ${message.content}`)
  }
  for (const message of early.splice(0)) show(message)

  let question: QuestionAnswerRecord | undefined
  let contextualMenu: ActionMenu | undefined
  wallet.agent.events.on<QuestionAnswerStateChangedEvent>(QuestionAnswerEventTypes.QuestionAnswerStateChanged, ({ payload }) => {
    const record = payload.questionAnswerRecord
    if (record.role !== QuestionAnswerRole.Responder || record.state !== QuestionAnswerState.QuestionReceived) return
    question = record
    say(
      `${record.questionText}\n${numbered(
        record.validResponses.map((response) => response.text),
        '/pick',
      )}`,
    )
  })
  wallet.agent.events.on<ActionMenuStateChangedEvent>(ActionMenuEventTypes.ActionMenuStateChanged, ({ payload }) => {
    const record = payload.actionMenuRecord
    if (record.role !== ActionMenuRole.Requester || record.state !== ActionMenuState.PreparingSelection || !record.menu) return
    contextualMenu = record.menu
    say(
      `menu: ${record.menu.title}\n${numbered(
        record.menu.options.map((option) => option.title),
        '/do',
      )}`,
    )
  })

  /** Slash commands: name -> what it does with its argument. */
  const commands: Record<string, (argument: string) => Promise<void>> = {
    '/pick': async (n) => {
      const text = question?.validResponses[Number(n) - 1]?.text
      if (!question || !text) return say('no such menu item')
      await wallet.answerMenu(question.id, text)
      question = undefined
    },
    '/menu': () => wallet.requestContextualMenu(connectionId),
    '/do': async (n) => {
      const option = contextualMenu?.options[Number(n) - 1]
      if (!option) return say('no such option')
      await wallet.performContextualMenuOption(connectionId, option.name)
    },
    '/hangup': async () => {
      await wallet.hangUp(connectionId)
      say('connection terminated; /quit to leave')
    },
  }

  rl.prompt()
  for await (const line of rl) {
    const text = line.trim()
    if (text === '/quit') break
    const [name = '', argument = ''] = text.split(/\s+/, 2)
    const command = commands[name]
    try {
      if (command) await command(argument)
      else if (text) await wallet.sendText(connectionId, text)
    } catch (error) {
      say(`error: ${(error as Error).message}`)
    }
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
