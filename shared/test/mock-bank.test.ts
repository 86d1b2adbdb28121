import { describe, expect, it } from 'vitest';
import { mockBankIsoAt, resolveRejectReason, resolveTiming, timelineFor } from '../src/index.ts';

const at = (steps: ReturnType<typeof timelineFor>) => steps.map((step) => [step.atSeconds, step.iso]);

describe('Mock bank timelines', () => {
  it('instant completes at approval', () => {
    expect(at(timelineFor({ preset: 'instant', completeAfterSeconds: null }))).toEqual([[0, 'ACSC']]);
  });

  it('realistic runs 0/5/15/60 s and slow 0/30 s/2 min/10 min', () => {
    expect(at(timelineFor({ preset: 'realistic', completeAfterSeconds: null }))).toEqual([
      [0, 'ACTC'],
      [5, 'ACCP'],
      [15, 'ACSP'],
      [60, 'ACSC'],
    ]);
    expect(at(timelineFor({ preset: 'slow', completeAfterSeconds: null }))).toEqual([
      [0, 'ACTC'],
      [30, 'ACCP'],
      [120, 'ACSP'],
      [600, 'ACSC'],
    ]);
  });

  it('completeAfterSeconds N runs at 0 / 10% / 40% / N and skips middle steps that round together', () => {
    expect(at(timelineFor({ preset: null, completeAfterSeconds: 100 }))).toEqual([
      [0, 'ACTC'],
      [10, 'ACCP'],
      [40, 'ACSP'],
      [100, 'ACSC'],
    ]);
    expect(at(timelineFor({ preset: null, completeAfterSeconds: 2 }))).toEqual([
      [0, 'ACTC'],
      [1, 'ACSP'],
      [2, 'ACSC'],
    ]);
    expect(at(timelineFor({ preset: null, completeAfterSeconds: 1 }))).toEqual([
      [0, 'ACTC'],
      [1, 'ACSC'],
    ]);
    expect(at(timelineFor({ preset: null, completeAfterSeconds: 3600 }))).toEqual([
      [0, 'ACTC'],
      [360, 'ACCP'],
      [1440, 'ACSP'],
      [3600, 'ACSC'],
    ]);
  });

  it('status is a pure function of approval time, timing and now', () => {
    const approvedAt = new Date('2026-01-01T00:00:00Z');
    const realistic = { preset: 'realistic', completeAfterSeconds: null } as const;
    const after = (seconds: number) => new Date(approvedAt.getTime() + seconds * 1000);
    expect(mockBankIsoAt(realistic, approvedAt, after(0))).toBe('ACTC');
    expect(mockBankIsoAt(realistic, approvedAt, after(4.999))).toBe('ACTC');
    expect(mockBankIsoAt(realistic, approvedAt, after(5))).toBe('ACCP');
    expect(mockBankIsoAt(realistic, approvedAt, after(59))).toBe('ACSP');
    expect(mockBankIsoAt(realistic, approvedAt, after(60))).toBe('ACSC');
  });

  it('a choice made on the page overrides the request, and seconds override a preset', () => {
    expect(resolveTiming(undefined, undefined)).toEqual({ preset: 'instant', completeAfterSeconds: null });
    expect(resolveTiming({}, { preset: 'slow' })).toEqual({ preset: 'slow', completeAfterSeconds: null });
    expect(resolveTiming({ preset: 'realistic' }, { completeAfterSeconds: 9 })).toEqual({
      preset: 'realistic',
      completeAfterSeconds: null,
    });
    expect(resolveTiming(null, { preset: 'slow', completeAfterSeconds: 9 })).toEqual({
      preset: null,
      completeAfterSeconds: 9,
    });
    expect(resolveRejectReason(undefined, { rejectReason: 'AC04' })).toBe('AC04');
    expect(resolveRejectReason('AM04', { rejectReason: 'AC04' })).toBe('AM04');
    expect(resolveRejectReason(undefined, null)).toBe('CUST');
  });
});
