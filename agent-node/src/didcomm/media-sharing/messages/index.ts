export * from './ShareMediaMessage.ts'
