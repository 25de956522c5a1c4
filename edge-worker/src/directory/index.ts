/** The user directory Durable Object: identities → connections and roles. */
export { Directory, type DirectoryUser } from './Directory.ts'
