import { readFile } from 'node:fs/promises';
import { matchesOnly } from './check-filter';
import { ALL_CHECKS } from './checks/all-checks';
import { parseCliArgs, USAGE, UsageError } from './cli-args';
import { ConfigError, DEFAULT_CONFIG, parseConfigText } from './config';
import { formatJSON, formatProgress, formatReport } from './report';
import { runServerConformance } from './run-server-conformance';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

async function main(argv: readonly string[]): Promise<number> {
  let args;
  let config = DEFAULT_CONFIG;
  try {
    args = parseCliArgs(argv);
    if (args === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (args === 'list') {
      process.stdout.write(ALL_CHECKS.map((check) => `${check.name}${check.required ? '' : ' (optional)'}: ${check.description}\n`).join(''));
      return 0;
    }
    const only = args.only;
    if (!ALL_CHECKS.some((check) => matchesOnly(check.name, only))) throw new UsageError(`--only ${JSON.stringify(only)} matches no check (see --list)`);
    if (args.configFile !== undefined) config = parseConfigText(await readFile(args.configFile, 'utf8'));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  const json = args.json;
  const summary = await runServerConformance({
    url: args.server,
    moreURLs: args.moreServers,
    config,
    ...(args.only === undefined ? {} : { only: args.only }),
    onResult: (result) => process.stderr.write(`${formatProgress(result)}\n`),
  });
  process.stderr.write(`\n${formatReport(summary)}\n`);
  if (json) process.stdout.write(`${formatJSON(summary)}\n`);
  return summary.ok ? 0 : EXIT_FAILED;
}

process.exitCode = await main(process.argv.slice(2));
