export * from './frames.ts'
export * from './handshake.ts'
