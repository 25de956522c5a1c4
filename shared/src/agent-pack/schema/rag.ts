/**
 * Spec section `rag`: retrieval over the agent's documents. The section is optional as a whole:
 * present (in the pack or through a RAG_* / VECTOR_* variable) means retrieval is wanted, and
 * its missing fields get the defaults.
 */
import { RAG_PROVIDER_ALIASES, VECTOR_STORE_ALIASES } from '../aliases.ts'
import {
  DEFAULT_RAG_CHUNK_OVERLAP,
  DEFAULT_RAG_CHUNK_SIZE,
  DEFAULT_RAG_DOCS_PATH,
  DEFAULT_RAG_PROVIDER,
  DEFAULT_VECTOR_INDEX_NAME,
  DEFAULT_VECTOR_STORE_TYPE,
  RAG_PROVIDERS,
  VECTOR_STORE_TYPES,
} from '../defaults.ts'
import { choiceValue, listOf, numberValue, section, textValue, urlValue } from '../values.ts'

/** `rag.vectorStore`: where the chunks and their vectors are kept. */
export const VectorStoreSettings = section({
  type: choiceValue(VECTOR_STORE_TYPES, VECTOR_STORE_ALIASES).default(DEFAULT_VECTOR_STORE_TYPE).describe('kvstore or hosted-vector.'),
  indexName: textValue().default(DEFAULT_VECTOR_INDEX_NAME).describe('Index name.'),
  tableName: textValue().optional().describe('Table of a SQL vector store (extension read from hologram-ai-agent packs).'),
})

/** `rag`: retrieval settings. */
export const RagSection = section({
  provider: choiceValue(RAG_PROVIDERS, RAG_PROVIDER_ALIASES).default(DEFAULT_RAG_PROVIDER).describe('vectorstore or chain.'),
  docsPath: textValue().default(DEFAULT_RAG_DOCS_PATH).describe('Local documents directory.'),
  remoteUrls: listOf(urlValue(), 'http(s) URLs').default([]).describe('Remote documents (.txt, .md, .pdf, .csv).'),
  chunkSize: numberValue({ min: 1, integer: true }).default(DEFAULT_RAG_CHUNK_SIZE).describe('Characters per chunk.'),
  chunkOverlap: numberValue({ min: 0, integer: true }).default(DEFAULT_RAG_CHUNK_OVERLAP).describe('Characters of overlap.'),
  vectorStore: VectorStoreSettings.prefault({}),
  vectordb: section({ apiKey: textValue().optional().describe('Key for the hosted vector database (secret).') }).optional(),
})
