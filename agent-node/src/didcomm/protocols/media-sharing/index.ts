export * from './MediaSharingApi.ts'
export * from './MediaSharingEvents.ts'
export * from './MediaSharingModule.ts'
export * from './messages/index.ts'
