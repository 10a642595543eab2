// What every folder of src/ may share: the logging interface, the clock, the IP family. Imports nothing.
export type { Log } from './log';
export { silentLog } from './log';
export type { Clock, TimerHandle } from './clock';
export { systemClock } from './clock';
export type { IPFamily } from './ip-family';
