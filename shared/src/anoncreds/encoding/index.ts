export { normalizeAttributeName } from './attributeName.ts'
export { encodeAttributeValue } from './attributeValue.ts'
