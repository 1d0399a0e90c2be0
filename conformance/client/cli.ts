/**
 * Runs the client scenarios against a client implementation and prints a
 * report. Exit code: 0 all pass, 1 some fail, 2 bad command line or client module.
 */
import { scenarioNeeds } from './capabilities';
import { parseClientCliArgs, USAGE, UsageError } from './cli-args';
import { loadClientModule } from './factory';
import { formatHeader, formatReport } from './report';
import { runClientConformance, selectScenarios } from './run-client-conformance';
import { allScenarios } from './scenarios/index';

async function main(argv: readonly string[]): Promise<number> {
  let args;
  try {
    args = parseClientCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.list) {
    for (const scenario of selectScenarios(allScenarios, args.only)) {
      const needs = scenarioNeeds(scenario);
      process.stdout.write(`${scenario.name}${scenario.skip ? ' (skipped)' : ''}${needs.length === 0 ? '' : ` [needs ${needs.join(', ')}]`}\n    ${scenario.description}\n    ${scenario.spec}\n`);
    }
    return 0;
  }
  if (selectScenarios(allScenarios, args.only).length === 0) {
    process.stderr.write(`--only ${JSON.stringify(args.only)} matches no scenario (see --list)\n`);
    return 2;
  }
  let module;
  try {
    module = await loadClientModule(args.client);
  } catch (error) {
    process.stderr.write(`Could not load the client module: ${(error as Error).message}\n`);
    return 2;
  }
  const capabilities = args.capabilities ?? module.capabilities;
  const summary = await runClientConformance({
    factory: module.createClient,
    capabilities,
    transport: args.transport,
    ...(args.api === undefined ? {} : { api: args.api }),
    ...(args.only === undefined ? {} : { only: args.only }),
  });
  process.stdout.write(`${formatHeader(summary.api, capabilities)}\n\n${formatReport(summary)}\n`);
  return summary.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
