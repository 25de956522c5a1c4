export { LINK_SECRET_ATTRIBUTE, normalizeAttributeName } from './attributeName.ts'
export { encodeAttributeValue } from './attributeValue.ts'
