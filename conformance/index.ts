/**
 * `roomsync/conformance`: the two conformance suites, for use from code (a
 * test of another server or client). `server` drives a server over the wire
 * protocol; `client` drives a client against a scripted server. The bin
 * `roomsync-conformance` runs them from the command line.
 * @module roomsync/conformance
 */
export * as server from './server/index';
export * as client from './client/index';
export { runServerConformance, type ConformanceSummary, type RunServerConformanceOptions } from './server/index';
export { runClientConformance, type ClientConformanceOptions, type ClientConformanceSummary } from './client/index';
