/**
 * `menu-display` and `menu-select`: question-answer 1.0 (Aries RFC 0113,
 * `@credo-ts/question-answer`). The question's `@id` is Parley's message id, so the answer's
 * thread (and the `menu-select` envelope's `threadId`) is the id `POST /v1/message` returned.
 * The answer carries an item's text; the item ids, stored on the question's record, map it back.
 */
import { DidCommEventTypes, type DidCommMessageProcessedEvent } from '@credo-ts/didcomm'
import {
  AnswerMessage,
  QuestionAnswerRepository,
  QuestionAnswerRole,
  QuestionAnswerService,
  ValidResponse,
} from '@credo-ts/question-answer'
import type { MessageReceiver, MessageSender } from '../contract.ts'

/** Record metadata key: item text -> item id of the menu a question carries. */
const MENU_ITEM_IDS = 'parley/menu-item-ids'

/** `menu-display` -> question (prompt = question text, items = valid responses); `threadId` becomes the parent thread. */
export const sendMenuDisplay: MessageSender<'menu-display'> = async (body, context) => {
  const { agent, connection, messageId } = context
  const { questionMessage, questionAnswerRecord: record } = await agent.dependencyManager
    .resolve(QuestionAnswerService)
    .createQuestion(agent.context, connection.id, {
      question: body.prompt,
      validResponses: body.menuItems.map((item) => new ValidResponse({ text: item.text })),
    })
  questionMessage.id = messageId
  if (body.threadId) questionMessage.setThread({ parentThreadId: body.threadId })
  record.threadId = messageId
  record.metadata.set(MENU_ITEM_IDS, Object.fromEntries(body.menuItems.map((item) => [item.text, item.id])))
  await agent.dependencyManager.resolve(QuestionAnswerRepository).update(agent.context, record)
  await context.sendDidComm(questionMessage)
}

/**
 * Answers to our questions -> `menu-select` envelopes. An answer that is none of the menu's items
 * (the protocol does not stop a wallet from sending one) is logged and dropped.
 */
export const receiveMenuSelect: MessageReceiver = (agent, receive) => {
  const { logger } = agent.config
  agent.events.on<DidCommMessageProcessedEvent>(DidCommEventTypes.DidCommMessageProcessed, ({ payload }) => {
    const { message, connection, receivedAt } = payload
    if (!(message instanceof AnswerMessage) || !connection) return
    const query = { connectionId: connection.id, threadId: message.threadId, role: QuestionAnswerRole.Questioner }
    agent.modules.questionAnswer.findAllByQuery(query).then(
      ([record]) => {
        const ids = record?.metadata.get<Record<string, string>>(MENU_ITEM_IDS)
        if (!ids || !Object.hasOwn(ids, message.response)) {
          logger.warn(`answer ${message.id} matches no menu item of question ${message.threadId}; dropped`)
          return
        }
        receive({
          type: 'menu-select',
          id: message.id,
          connectionId: connection.id,
          timestamp: Math.floor((receivedAt ?? new Date()).getTime() / 1000),
          threadId: message.threadId,
          menuItems: [{ id: ids[message.response]! }],
        })
      },
      (error: unknown) => logger.error(`could not map answer ${message.id} to a menu item`, { error }),
    )
  })
}
