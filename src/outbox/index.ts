export { BackgroundLoop, type BackgroundLoopOptions, type LoopLog } from './loop.js';
