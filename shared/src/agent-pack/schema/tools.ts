/**
 * Spec section `tools`: external HTTP tools (`dynamicConfig`, in the format hologram-ai-agent
 * reads) and the settings of built-in tools (`bundled`).
 */
import {
  DEFAULT_HTTP_TOOL_METHOD,
  DEFAULT_STAT_CLASS,
  DEFAULT_STATISTICS_ENABLED,
  DEFAULT_STATISTICS_REQUIRES_AUTH,
  HTTP_TOOL_METHODS,
} from '../defaults.ts'
import {
  booleanValue,
  choiceValue,
  listOf,
  nonEmptyTextValue,
  numberValue,
  optionalUrlValue,
  section,
  textValue,
  uniqueListOf,
  urlValue,
} from '../values.ts'

/**
 * One external HTTP tool. `endpoint` may hold `{query}`, replaced by the model's URL-encoded
 * query; `authHeader: authToken` is sent when `authHeader` is set.
 */
export const HttpToolDefinition = section({
  name: nonEmptyTextValue().describe('Tool name the model calls.'),
  description: textValue().describe('What the tool does, for the model.'),
  endpoint: urlValue().describe('URL; {query} is replaced by the URL-encoded query.'),
  method: choiceValue(HTTP_TOOL_METHODS).default(DEFAULT_HTTP_TOOL_METHOD).describe('GET or POST.'),
  authHeader: textValue().optional().describe('Header carrying authToken.'),
  authToken: textValue().optional().describe('Value of authHeader (secret).'),
  requiresAuth: booleanValue().default(false).describe('Only authenticated users may use the tool.'),
})

/**
 * Fields that may also be written as a JSON string holding their value (`dynamicConfig: '[]'`,
 * `dynamicConfig: ${LLM_TOOLS_CONFIG}`): the resolver parses the string before validation, and
 * the editors' JSON Schema accepts a string there.
 */
export const JSON_TEXT_FIELDS: readonly (readonly string[])[] = [['tools', 'dynamicConfig']]

/** One of `statisticsFetcher.defaultStatEnums`. */
export const StatEnum = section({
  index: numberValue({ min: 0, integer: true }).optional(),
  label: textValue().optional(),
  value: textValue().optional(),
  description: textValue().optional(),
})

/** `tools.bundled.statisticsFetcher`. */
export const StatisticsFetcherSettings = section({
  enabled: booleanValue().default(DEFAULT_STATISTICS_ENABLED).describe('Enables the tool.'),
  endpoint: optionalUrlValue().optional().describe('Statistics API URL.'),
  requiresAuth: booleanValue().default(DEFAULT_STATISTICS_REQUIRES_AUTH).describe('Requires an authenticated user.'),
  defaultStatClass: textValue().default(DEFAULT_STAT_CLASS).describe('Default statistics class.'),
  defaultStatEnums: listOf(StatEnum, 'statistics enums').optional().describe('Default enum values.'),
})

/** `tools`. */
export const ToolsSection = section({
  dynamicConfig: uniqueListOf(HttpToolDefinition, 'tools', 'name')
    .default([])
    .describe('External model tools: a list, or a JSON string holding one.'),
  bundled: section({ statisticsFetcher: StatisticsFetcherSettings.prefault({}) })
    .prefault({})
    .describe('Settings of built-in tools, keyed by tool name.'),
})
