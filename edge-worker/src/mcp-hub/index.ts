/** The Durable Object of one admin-controlled MCP server's shared connection. */
export { McpServerHub } from './McpServerHub.ts'
