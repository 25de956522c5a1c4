export * from './ReactionsEvents.ts'
export * from './ReactionsModule.ts'
export * from './messages/MessageReactionsMessage.ts'
