export * from './ActionMenuProblemReportMessage.ts'
export * from './MenuMessage.ts'
export * from './MenuRequestMessage.ts'
export * from './PerformMessage.ts'
