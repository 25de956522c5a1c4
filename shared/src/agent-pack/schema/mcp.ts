/**
 * Spec section `mcp`: Model Context Protocol servers, their access modes and tool access.
 */
import { z } from 'zod'
import {
  DEFAULT_APPROVAL_TIMEOUT_MINUTES,
  DEFAULT_MCP_ACCESS_MODE,
  DEFAULT_MCP_HEADER_NAME,
  DEFAULT_MCP_USER_FIELD_TYPE,
  MCP_ACCESS_MODES,
  MCP_TRANSPORTS,
  MCP_USER_FIELD_TYPES,
  TOOL_ACCESS_DEFAULTS,
} from '../defaults.ts'
import {
  booleanValue,
  choiceValue,
  listOf,
  mapOf,
  nonEmptyTextValue,
  numberValue,
  section,
  textListValue,
  textMapValue,
  textValue,
  uniqueListOf,
  urlValue,
} from '../values.ts'

/** One field a user is asked for when configuring a `user-controlled` server. */
export const McpUserConfigField = section({
  name: nonEmptyTextValue().describe('Internal field name.'),
  type: choiceValue(MCP_USER_FIELD_TYPES).default(DEFAULT_MCP_USER_FIELD_TYPE).describe('secret (masked, never logged) or text.'),
  label: z
    .union([textValue(), textMapValue()], { error: 'expected a string or a mapping of language to string' })
    .optional()
    .describe('Prompt label, or one per language.'),
  headerTemplate: textValue().optional().describe('Maps the value into a header; {value} stands for it.'),
  headerName: textValue().default(DEFAULT_MCP_HEADER_NAME).describe('Header to set.'),
})

/**
 * An approval policy of role-based tool access. Without approver roles (none given, or an empty
 * list) its tools still wait for an approval, which only admins may give (resolve.ts warns).
 */
export const ApprovalPolicy = section({
  tools: textListValue().describe('Tools that need approval.'),
  approvers: textListValue().default([]).describe('Roles that may approve (admins always may); none: admins only.'),
  timeoutMinutes: numberValue({ min: 1 }).default(DEFAULT_APPROVAL_TIMEOUT_MINUTES).describe('Minutes before a pending request expires.'),
})

/**
 * `toolAccess`: the role-based model applies when `roles` is present, else the legacy one
 * (`default: public|admin` with `public` exceptions; `adminOnly` is hologram-ai-agent's legacy
 * list of tools kept for admins when the default is public).
 */
export const ToolAccess = section({
  default: choiceValue(TOOL_ACCESS_DEFAULTS).optional().describe('public, admin (legacy) or none, all (role-based).'),
  public: textListValue().optional().describe('Legacy: tools open to everyone when default is admin.'),
  adminOnly: textListValue().optional().describe('Legacy: tools kept for admins when default is public.'),
  roles: mapOf(textListValue(), 'role names to lists of tool names').optional().describe('Tools each role may use.'),
  approval: listOf(ApprovalPolicy, 'approval policies').optional().describe('Approval policies.'),
})

/**
 * `args` of a stdio server: a list, or a string holding a JSON list or words separated by spaces.
 */
export const McpArgs = z.union([textListValue(), z.string()], { error: 'expected a list of strings or a string' }).transform((value) => {
  if (Array.isArray(value)) return value
  const text = value.trim()
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed as string[]
    } catch {
      // not JSON: read as words
    }
  }
  return text === '' ? [] : text.split(/\s+/)
})

/** One `mcp.servers` entry; `url` is required for sse and streamable-http, `command` for stdio. */
export const McpServer = section({
  name: nonEmptyTextValue().describe('Unique server name.'),
  transport: choiceValue(MCP_TRANSPORTS).describe('stdio, sse or streamable-http.'),
  url: urlValue().optional().describe('Required for sse and streamable-http.'),
  command: textValue().optional().describe('Required for stdio.'),
  args: McpArgs.optional().describe('Arguments for stdio.'),
  env: textMapValue().optional().describe('Environment for the stdio process.'),
  headers: textMapValue().optional().describe('Headers sent on every request (sse, streamable-http).'),
  reconnect: booleanValue().optional().describe('Reconnect automatically.'),
  accessMode: choiceValue(MCP_ACCESS_MODES).default(DEFAULT_MCP_ACCESS_MODE).describe('admin-controlled or user-controlled.'),
  userConfig: section({ fields: uniqueListOf(McpUserConfigField, 'fields', 'name').default([]) })
    .optional()
    .describe('Only when accessMode is user-controlled.'),
  toolAccess: ToolAccess.optional().describe('Tool-level access control.'),
}).superRefine((server, context) => {
  if (server.transport === 'stdio' ? server.command === undefined : server.url === undefined) {
    const field = server.transport === 'stdio' ? 'command' : 'url'
    context.addIssue({
      code: 'custom',
      path: [field],
      input: undefined,
      message: `expected a ${field === 'url' ? 'URL' : 'command'} (required for transport ${server.transport})`,
    })
  }
})

/** `mcp`; server names are unique (a repeated one is dropped, MCP_SERVERS_CONFIG's too). */
export const McpSection = section({
  servers: uniqueListOf(McpServer, 'servers', 'name').default([]),
})
