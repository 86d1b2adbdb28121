/**
 * The summary both bench modes end with: one line per figure, its goal and whether it was met,
 * so a run can be read (or grepped for `MISSED`) without knowing the table above it.
 */
export interface Goal {
  figure: string;
  /** The measured value, as printed. */
  value: string;
  /** The goal, as printed (e.g. `>= 60% of baseline`). */
  goal: string;
  met: boolean;
}

export function printGoals(goals: Goal[]): void {
  if (goals.length === 0) return;
  const width = Math.max(...goals.map((goal) => goal.figure.length)) + 2;
  console.log('\nsummary');
  for (const { figure, value, goal, met } of goals) {
    console.log(`${figure.padEnd(width)}${value} (goal ${goal}): ${met ? 'met' : 'MISSED'}`);
  }
}
