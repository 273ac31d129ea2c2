// The expander (ical.js) is not re-exported: the poller loads it with its first feed (expand.ts).
export type { ExpandOptions } from './expand.js';
export { DEFAULT_FETCH_LIMITS, FeedRefused, fetchCaldav, fetchIcs, pinnedFetch } from './fetch.js';
export type { FetchLimits, FetchResult } from './fetch.js';
export { CalendarPoller } from './poller.js';
export type { CalendarPollerOptions, FeedPollResult } from './poller.js';
export { CalendarPushWorker, isPushedUid, pushedUid } from './push-worker.js';
export type { PushWorkerOptions } from './push-worker.js';
export { SecretEnvRefused, basicAuth, calendarFeeds, fetchableUrl } from './sources.js';
export type { CalendarFeed } from './sources.js';
export { calendarHealth } from './health.js';
export type { CalendarHealth, StaleCalendar } from './health.js';
