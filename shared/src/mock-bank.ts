import { z } from 'zod';
import type { IsoCode } from './state-machine.ts';

export const MOCK_PRESETS = ['instant', 'realistic', 'slow'] as const;
export const MockPreset = z.enum(MOCK_PRESETS).meta({
  id: 'MockPreset',
  description:
    'Mock bank timing after approval: instant (COMPLETED at once), realistic (60 s), slow (10 min)',
});
export type MockPreset = z.infer<typeof MockPreset>;

export const REJECT_REASONS = ['CUST', 'AM04', 'AC04', 'NARR'] as const;
export const RejectReason = z
  .enum(REJECT_REASONS)
  .meta({ id: 'RejectReason', description: 'ISO reason the Mock bank rejects with' });
export type RejectReason = z.infer<typeof RejectReason>;

export const CompleteAfterSeconds = z
  .int({ error: 'must be an integer from 1 to 3600' })
  .min(1, { error: 'must be an integer from 1 to 3600' })
  .max(3600, { error: 'must be an integer from 1 to 3600' });

/** `mockBank` on creation: how the Mock bank behaves once the customer decides. */
export const MockBankScenario = z
  .object({
    preset: MockPreset.optional().meta({ description: 'Timing after approval; default instant' }),
    completeAfterSeconds: CompleteAfterSeconds.optional().meta({
      description: "Completes this many seconds after approval; overrides the preset's timing",
    }),
    rejectReason: RejectReason.optional().meta({ description: 'ISO reason used on rejection; default CUST' }),
  })
  .meta({
    id: 'MockBankScenario',
    description: 'How the Mock bank behaves once the customer decides (provider mock only)',
  });
export type MockBankScenario = z.infer<typeof MockBankScenario>;

/** The timing chosen at approval (by the page, the sandbox helper, or the request's default). */
export const ApprovalTiming = z.object({
  preset: MockPreset.optional(),
  completeAfterSeconds: CompleteAfterSeconds.optional(),
});
export type ApprovalTiming = z.infer<typeof ApprovalTiming>;

/** A resolved timing: exactly one of preset or seconds. */
export type ResolvedTiming =
  | { preset: MockPreset; completeAfterSeconds: null }
  | { preset: null; completeAfterSeconds: number };

/**
 * The timing actually used: a choice made at approval overrides the request's `mockBank`
 * wholesale; within one scenario `completeAfterSeconds` overrides the preset.
 */
export const resolveTiming = (
  chosen?: ApprovalTiming | null,
  requested?: MockBankScenario | null,
): ResolvedTiming => {
  const source = chosen && (chosen.preset || chosen.completeAfterSeconds) ? chosen : requested;
  if (source?.completeAfterSeconds)
    return { preset: null, completeAfterSeconds: source.completeAfterSeconds };
  return { preset: source?.preset ?? 'instant', completeAfterSeconds: null };
};

export const resolveRejectReason = (
  chosen?: RejectReason | null,
  requested?: MockBankScenario | null,
): RejectReason => chosen ?? requested?.rejectReason ?? 'CUST';

export type TimelineStep = { atSeconds: number; iso: IsoCode };

const PRESET_TIMELINES: Record<MockPreset, TimelineStep[]> = {
  instant: [{ atSeconds: 0, iso: 'ACSC' }],
  realistic: [
    { atSeconds: 0, iso: 'ACTC' },
    { atSeconds: 5, iso: 'ACCP' },
    { atSeconds: 15, iso: 'ACSP' },
    { atSeconds: 60, iso: 'ACSC' },
  ],
  slow: [
    { atSeconds: 0, iso: 'ACTC' },
    { atSeconds: 30, iso: 'ACCP' },
    { atSeconds: 120, iso: 'ACSP' },
    { atSeconds: 600, iso: 'ACSC' },
  ],
};

/**
 * The Mock bank's steps after approval, in seconds from approval. For N seconds: AUTHORIZED at
 * once, SUBMITTED at 10% and ACCEPTED at 40% of N (rounded to whole seconds), COMPLETED at N;
 * a middle step that rounds to the same second as the step before it is skipped.
 */
export const timelineFor = (timing: ResolvedTiming): TimelineStep[] => {
  if (timing.completeAfterSeconds === null) return PRESET_TIMELINES[timing.preset];
  const n = timing.completeAfterSeconds;
  const steps: TimelineStep[] = [{ atSeconds: 0, iso: 'ACTC' }];
  for (const [fraction, iso] of [
    [0.1, 'ACCP'],
    [0.4, 'ACSP'],
  ] as const) {
    const atSeconds = Math.round(n * fraction);
    const previous = steps.at(-1)?.atSeconds ?? 0;
    if (atSeconds > previous && atSeconds < n) steps.push({ atSeconds, iso });
  }
  steps.push({ atSeconds: n, iso: 'ACSC' });
  return steps;
};

/** Steps of a timeline that are due at `now` for a payment approved at `approvedAt`. */
export const dueSteps = (steps: TimelineStep[], approvedAt: Date, now: Date): TimelineStep[] =>
  steps.filter((step) => approvedAt.getTime() + step.atSeconds * 1000 <= now.getTime());

/** Status of a Mock bank payment as a pure function of (approval time, timing, now). */
export const mockBankIsoAt = (timing: ResolvedTiming, approvedAt: Date, now: Date): IsoCode => {
  const due = dueSteps(timelineFor(timing), approvedAt, now);
  return due.at(-1)?.iso ?? 'PDNG';
};
