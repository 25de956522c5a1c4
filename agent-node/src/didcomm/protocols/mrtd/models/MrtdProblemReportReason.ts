/** Problem-report codes of the MRTD protocol: the user refused, or did not answer in time. */
export enum MrtdProblemReportReason {
  MrzRefused = 'e.p.mrz-refused',
  MrzTimeout = 'e.p.mrz-timeout',
  EMrtdRefused = 'e.p.emrtd-refused',
  EMrtdTimeout = 'e.p.emrtd-timeout',
}
