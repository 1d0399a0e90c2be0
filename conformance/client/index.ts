/** The client conformance suite, for use from code (e.g. a vitest test of another client). */
export { runClientConformance, selectScenarios, type ClientConformanceOptions, type ClientConformanceSummary } from './run-client-conformance';
export { runScenario, skipReason, type ApiPath, type RunOptions, type ScenarioResult, type StepFailure, type TransportKind } from './engine/run-scenario';
export { formatReport, formatResult } from './report';
export { allScenarios } from './scenarios/index';
export { capabilities as ourCapabilities, createClient, loadClientModule, readAll, type ClientFactory, type ClientModule, type ClientOptions, type ClientUnderTest } from './factory';
export { ALL_CAPABILITIES, CAPABILITIES, parseCapabilities, type Capability } from './capabilities';
export type { Scenario, ScenarioClient, Step } from './scenario';
export { checkClientProperty, describeCounterexample, type PropertyOptions, type PropertyOutcome } from './property/check-client-property';
export { commandsToScenario, PUSH_FRAMES_A_CLIENT_MAY_HOLD, type ModelOptions } from './property/model-scenario';
export { formatScenarioModule } from './property/scenario-file';
