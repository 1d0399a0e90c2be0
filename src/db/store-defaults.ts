/**
 * The one place where the store binds its injectable parts to the platform.
 */
import type { SchedulerTimers } from '../dag/persist-scheduler';
import type { StoreLogger } from './logger';

export const defaultClock = (): number => Date.now();

export const defaultTimers: SchedulerTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const defaultRandom = (): number => Math.random();

export const defaultLogger: StoreLogger = console;
