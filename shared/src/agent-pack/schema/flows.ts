/**
 * Spec section `flows`: welcome, authentication and the contextual menu.
 */
import { DEFAULT_ROLE, DEFAULT_USER_IDENTITY_ATTRIBUTE, MENU_BADGES, MENU_VISIBILITY } from '../defaults.ts'
import { booleanValue, choiceValue, nonEmptyTextValue, section, textListValue, textValue, uniqueListOf } from '../values.ts'

/** `flows.welcome`: the greeting sent when a connection completes or the profile arrives. */
export const WelcomeFlow = section({
  enabled: booleanValue().optional().describe('Enables the welcome flow.'),
  sendOnProfile: booleanValue().optional().describe("Send the greeting when the user's profile message arrives."),
  templateKey: textValue().optional().describe('Key in languages.<lang> used as greeting template.'),
})

/** `flows.authentication`: credential-based authentication and roles (spec "Authentication"). */
export const AuthenticationFlow = section({
  enabled: booleanValue().default(false).describe('Enables credential-based authentication.'),
  required: booleanValue().default(false).describe('Blocks unauthenticated (guest) users from chatting.'),
  credentialDefinitionId: textValue().optional().describe('Definition of the credential used to authenticate.'),
  issuerServiceDid: textValue().optional().describe('DID of the service that issues the credential.'),
  userIdentityAttribute: textValue()
    .default(DEFAULT_USER_IDENTITY_ATTRIBUTE)
    .describe('Credential attribute used as the unique user identity.'),
  rolesAttribute: textValue().optional().describe('Attribute holding roles: a string, comma-separated list or JSON array.'),
  defaultRole: textValue().default(DEFAULT_ROLE).describe('Role when the credential has no roles attribute.'),
  adminUsers: textListValue().default([]).describe('Identities that bypass all role checks.'),
  adminAvatars: textListValue().default([]).describe('Legacy name list with admin privileges; adminUsers is preferred.'),
})

/**
 * One entry of `flows.menu.items`. Its `id` names the option in the contextual menu and its label
 * is the option's title, so neither may be empty (agent-node refuses such a menu).
 */
export const MenuItem = section({
  id: nonEmptyTextValue().describe('Unique item id.'),
  labelKey: nonEmptyTextValue().optional().describe('Key into languages.<lang>.strings.'),
  label: nonEmptyTextValue().optional().describe('Static label, used when labelKey is absent.'),
  action: textValue()
    .optional()
    .describe('Action to run: authenticate, logout, mcp-config, abort-config, my-approval-requests, pending-approvals, ...'),
  visibleWhen: choiceValue(MENU_VISIBILITY).optional().describe('When the item is shown.'),
  badge: choiceValue(MENU_BADGES).optional().describe('A count shown beside the label.'),
})

/** `flows.menu`: the contextual menu; item ids are unique (a repeated one is dropped). */
export const MenuFlow = section({
  items: uniqueListOf(MenuItem, 'menu items', 'id').default([]),
})

/** `flows`. */
export const FlowsSection = section({
  welcome: WelcomeFlow.prefault({}),
  authentication: AuthenticationFlow.prefault({}),
  menu: MenuFlow.prefault({}),
})
