export * from './ProfileMessage.ts'
export * from './RequestProfileMessage.ts'
