import fc from 'fast-check';
import { runScenario, type ScenarioResult } from '../engine/run-scenario';
import type { ClientFactory } from '../factory';
import { formatResult } from '../report';
import type { Scenario } from '../scenario';
import { commandArbitrary, type Command } from './commands';
import { commandsToScenario, type ModelOptions } from './model-scenario';
import { formatScenarioModule } from './scenario-file';

export interface PropertyOptions extends ModelOptions {
  readonly factory: ClientFactory;
  /** @default 30 */
  readonly numRuns?: number;
  /** @default 20 */
  readonly maxCommands?: number;
  readonly seed?: number;
}

export interface PropertyOutcome {
  readonly ok: boolean;
  /** The shrunk failing case, as a scenario and as the text of a scenario module. */
  readonly counterexample?: { readonly commands: readonly Command[]; readonly scenario: Scenario; readonly module: string; readonly result: ScenarioResult };
  readonly seed: number;
  readonly numRuns: number;
}

/**
 * Random interleavings of app mutations, server pokes (other clients' changes,
 * acknowledgements of a prefix of what was pushed), socket drops, refused
 * connects, clock advances and reconnects, each checked against the model.
 */
export async function checkClientProperty(options: PropertyOptions): Promise<PropertyOutcome> {
  const property = fc.asyncProperty(fc.array(commandArbitrary, { maxLength: options.maxCommands ?? 20, size: 'max' }), async (commands) => {
    const result = await runScenario(commandsToScenario(commands, undefined, options), { factory: options.factory });
    return result.status === 'passed';
  });
  const details = await fc.check(property, { numRuns: options.numRuns ?? 30, ...(options.seed === undefined ? {} : { seed: options.seed }) });
  if (!details.failed || details.counterexample === null) return { ok: !details.failed, seed: details.seed, numRuns: details.numRuns };
  const [commands] = details.counterexample;
  const scenario = commandsToScenario(commands, 'property/regression', options);
  const result = await runScenario(scenario, { factory: options.factory });
  return { ok: false, seed: details.seed, numRuns: details.numRuns, counterexample: { commands, scenario, module: formatScenarioModule(scenario), result } };
}

/** What to print for a failed property: the shrunk case as a scenario module and why it fails. */
export function describeCounterexample(outcome: PropertyOutcome): string {
  const c = outcome.counterexample;
  if (c === undefined) return 'no counterexample';
  return [
    `The client breaks the model (seed ${outcome.seed}); shrunk to ${c.commands.length} command(s).`,
    ...formatResult(c.result),
    '',
    'Keep it as a regression: save this as conformance/client/scenarios/<name>.ts and list it in scenarios/index.ts',
    '',
    c.module,
  ].join('\n');
}
