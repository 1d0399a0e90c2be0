import { afterEach } from 'vitest';

/** Registers, at the top level of a test file, undo steps run after each test, last registered first. */
export function cleanupAfterEach(): (step: () => Promise<void>) => void {
  let steps: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of steps.reverse()) await step();
    steps = [];
  });
  return (step) => {
    steps.push(step);
  };
}
