export * from './events/index.ts'
export * from './messages/index.ts'
export * from './tunnel/index.ts'
export * from './url.ts'
