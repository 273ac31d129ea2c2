/** Start `usp-server registry ...` (the built CLI) as a separate process, as an operator would. */
import { spawn } from 'node:child_process';
import { BIN, REPO_ROOT } from '../support/cli.js';
import { waitUntil } from '../support/time.js';

export interface RunningRegistry {
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

export function startRegistryCli(args: string[], timeoutMs = 20_000): Promise<RunningRegistry> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    delete env.PORT;
    const child = spawn(process.execPath, [BIN, 'registry', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`usp-server registry did not start in time\n${stderr}`));
    }, timeoutMs);
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const m = /registry open at (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`usp-server registry exited with ${code}\n${stderr}`));
    });
  });
}

/** Poll `probe` every 200 ms (each probe is a call to a child) until it answers a value, or fail after `ms` naming `what`. */
export const eventually = <T>(
  probe: () => Promise<T | undefined | null | false>,
  ms: number,
  what: string,
): Promise<T> => waitUntil(probe, ms, what, 200);
