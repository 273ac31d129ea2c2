/** Where the pipeline and the server write their structured log lines; the server picks the sink. */
export interface Logger {
  /** Detail for diagnosis (off unless --log-level debug); optional so that a small sink may ignore it. */
  debug?(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
