export * from './CallsApi.ts'
export * from './CallsEvents.ts'
export * from './CallsModule.ts'
export * from './messages/index.ts'
