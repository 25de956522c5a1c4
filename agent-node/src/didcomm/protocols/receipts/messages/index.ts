export * from './MessageReceiptsMessage.ts'
export * from './RequestReceiptsMessage.ts'
