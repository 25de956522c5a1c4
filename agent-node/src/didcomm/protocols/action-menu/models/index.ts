export * from './ActionMenu.ts'
export * from './ActionMenuRole.ts'
export * from './ActionMenuState.ts'
