/**
 * Run the built command line (`node bin/usp-server.js ...`, so `npm run build` first) as a user
 * would: a finished command with its exit status and output, or a server kept running until the
 * test stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO_ROOT, 'bin/usp-server.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

function childEnv(env: CliOptions['env']): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  // A test names its database and data directory; the caller's own never leak in.
  delete out.DATABASE_URL;
  delete out.PORT;
  for (const [k, v] of Object.entries(env ?? {})) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Run a command to completion. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: childEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`usp-server ${args.join(' ')} did not finish in time\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export interface RunningCli {
  /** The base URL the server says it is open at. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `usp-server serve ...` and wait for the line that says where it is open. */
export function startServeCli(args: string[], opts: CliOptions = {}): Promise<RunningCli> {
  return startCliServer(['serve', ...args], opts);
}

/** Start `usp-server COMMAND ...` (a server: `serve`, `host serve`) and wait for the line that says where it is open. */
export function startCliServer(args: string[], opts: CliOptions = {}): Promise<RunningCli> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: childEnv(opts.env),
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
      reject(new Error(`usp-server ${args[0]} did not start in time\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const m = /is open at (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ url: m[1]!, child, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`usp-server ${args[0]} exited with ${code}\n${stderr}`));
    });
  });
}

/**
 * The environment for a child an SDK transport starts (`StdioClientTransport` passes only a few
 * variables by default): this process's, so a shifted clock (faketime's variables, `USP_CLOCK`)
 * reaches the child and both agree on the day; `extra` on top.
 */
export function inheritedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(childEnv(undefined))) if (v !== undefined) out[k] = v;
  return { ...out, ...extra };
}
