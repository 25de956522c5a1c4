export * from './frames.ts'
export * from './handshake.ts'
export * from './mcp-stdio.ts'
