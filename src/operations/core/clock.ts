/** The injected clock: the real one by default, a hand-moved one in tests, so expiry is testable without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A clock that reads `startMs` at the moment it is made and then advances with the system clock. */
export class ShiftedClock implements Clock {
  private readonly offset: number;
  constructor(
    startMs: number,
    private readonly real: () => number = Date.now,
  ) {
    this.offset = startMs - real();
  }
  now(): number {
    return this.real() + this.offset;
  }
}

/** The environment variable that puts a process on another clock than the system's (tests and demos). */
export const CLOCK_VARIABLE = 'USP_CLOCK';

/**
 * The clock a process runs on, from the setting `USP_CLOCK` (so a test can keep every process it
 * starts on the one clock it uses itself): unset or empty, the system clock; `fixed:<ISO instant>`
 * stands still at that instant, as a test server's manual clock does; `start:<ISO instant>` reads
 * that instant now and advances with real time. Throws an Error that says what is wrong otherwise.
 */
export function clockFromSetting(setting: string | undefined, realNow: () => number = Date.now): Clock {
  if (setting === undefined || setting.trim() === '') return systemClock;
  const m = /^(fixed|start):(.+)$/.exec(setting.trim());
  const ms = m ? Date.parse(m[2]!) : NaN;
  if (!m || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(m[2]!) || !Number.isFinite(ms)) {
    throw new Error(
      `${CLOCK_VARIABLE}=${JSON.stringify(setting)} is not a clock: use fixed:<instant> or start:<instant>, with an ISO 8601 instant such as 2026-12-01T17:00:00Z`,
    );
  }
  return m[1] === 'fixed' ? new ManualClock(ms) : new ShiftedClock(ms, realNow);
}
