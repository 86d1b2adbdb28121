import { describe, expect, it } from 'vitest';
import { type Observation, recorder } from './observe.ts';
import { scenarios } from './scenarios.ts';
import { mswTarget, serverTarget, type Target } from './targets.ts';

// No drift: every scenario runs against the real service and against the MSW kit, and what the
// client observes (statuses, codes, messages, details, shapes; ids and times aside) must be equal.

const server = await serverTarget();
const msw = mswTarget();

const run = async (target: Target, name: string): Promise<Observation[]> => {
  const log: Observation[] = [];
  await scenarios[name]!(
    target,
    await target.client(),
    recorder([target.baseUrl, target.publicBaseUrl], log),
  );
  return log;
};

describe('the MSW kit answers as the service does', () => {
  for (const name of Object.keys(scenarios)) {
    it(name, async () => {
      const real = await run(server, name);
      const mocked = await run(msw, name);
      expect(mocked).toEqual(real);
    });
  }
});
