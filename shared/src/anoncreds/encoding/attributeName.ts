/** Attribute names as anoncreds-rs compares them. */

/**
 * The common form of an attribute name: every ASCII space (U+0020) removed, then lowercased
 * (Unicode lowercase), as anoncreds-rs `attr_common_view` does. Used for credential-definition
 * attribute names, credential values and presentation-request referents.
 *
 * @param name a raw attribute name, e.g. `'First Name'`
 * @returns the normalised name, e.g. `'firstname'`
 *
 * Spec: AnonCreds v1 specification, "Generating a Credential Definition" (attribute names are
 * case- and space-insensitive).
 */
export function normalizeAttributeName(name: string): string {
  return name.replaceAll(' ', '').toLowerCase()
}

/** The attribute that carries the holder's link secret in every CL credential: never revealed. */
export const LINK_SECRET_ATTRIBUTE = 'master_secret'
