// Runs alertmon as a real process (through tsx, from the sources), as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { projectRoot } from '../../src/paths.js';

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: string[];
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): Promise<void>;
}

export function runScript(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: projectRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts src/main.ts and waits for its "listening" log line. */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
  });
  const output: string[] = [];
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output.join('')}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('"listening"')) continue;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output.join('')}`));
    });
  });
  return {
    child,
    url,
    output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
