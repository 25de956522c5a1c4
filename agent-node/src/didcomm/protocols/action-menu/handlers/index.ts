export * from './ActionMenuProblemReportHandler.ts'
export * from './MenuMessageHandler.ts'
export * from './MenuRequestMessageHandler.ts'
export * from './PerformMessageHandler.ts'
