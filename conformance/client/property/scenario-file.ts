import type { Scenario } from '../scenario';

/** A scenario as the text of a module for conformance/client/scenarios/, ready to keep as a regression. */
export function formatScenarioModule(scenario: Scenario): string {
  return [
    "import type { Scenario } from '../scenario';",
    '',
    `const scenario: Scenario = ${JSON.stringify(scenario, null, 2)};`,
    '',
    'export default scenario;',
    '',
  ].join('\n');
}
