export * from './ActionMenuRecord.ts'
export * from './ActionMenuRepository.ts'
