export * from './ReceiptsApi.ts'
export * from './ReceiptsEvents.ts'
export * from './ReceiptsModule.ts'
export * from './messages/index.ts'
