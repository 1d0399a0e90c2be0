export type { Check, CheckResult, CheckStatus } from './check';
export { CheckContext } from './check-context';
export { ALL_CHECKS } from './checks/all-checks';
export { DEFAULT_CONFIG, ConfigError, parseConfigText, resolveConfig, type ConformanceConfig } from './config';
export { formatJSON, formatProgress, formatReport, formatResult } from './report';
export { runServerConformance, type ConformanceSummary, type RunServerConformanceOptions } from './run-server-conformance';
