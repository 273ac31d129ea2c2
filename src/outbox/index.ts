export { BackgroundLoop, type BackgroundLoopOptions, type LoopLog } from './loop.js';
export {
  LeasedRunner,
  backoff,
  type AtCommit,
  type ClaimExtra,
  type Failed,
  type Failure,
  type Finished,
  type Handoff,
  type LeasedRow,
  type QueuePort,
  type RunnerOptions,
} from './runner.js';
export {
  notificationQueue,
  notificationRetryDelayMs,
  type NotificationProvider,
  type NotificationQueueOptions,
} from './notifications.js';
