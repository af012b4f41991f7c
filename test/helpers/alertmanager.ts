// The real Alertmanager (Debian's prometheus-alertmanager, the reference alertmon's
// Alertmanager API is compared with) and its command line, amtool, which checks every answer
// against Alertmanager's own API spec: a strict client to run against alertmon too.
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { binary, freePort, type RunningServer, runServer, scratchDir } from './realServers.js';

export const alertmanagerBinary = () => binary('ALERTMANAGER_PATH', 'prometheus-alertmanager', 'alertmanager');
export const amtoolBinary = () => binary('AMTOOL_PATH', 'amtool');

export interface AlertmanagerOptions {
  /** Webhook receiver URL every alert goes to (send_resolved), the route's only receiver. */
  readonly webhookUrl: string;
  /** Route timing, short so a test waits little (defaults: 0 s, 1 s, 1 h). */
  readonly groupWait?: string;
  readonly groupInterval?: string;
  readonly repeatInterval?: string;
  readonly groupBy?: readonly string[];
  /** YAML appended to the configuration (e.g. inhibit_rules:). */
  readonly extraConfig?: string;
}

/** The configuration an Alertmanager started by startAlertmanager reads. */
export function alertmanagerConfig(o: AlertmanagerOptions): string {
  return [
    'route:',
    '  receiver: recorder',
    `  group_by: [${(o.groupBy ?? ['alertname']).map((l) => JSON.stringify(l)).join(', ')}]`,
    `  group_wait: ${o.groupWait ?? '0s'}`,
    `  group_interval: ${o.groupInterval ?? '1s'}`,
    `  repeat_interval: ${o.repeatInterval ?? '1h'}`,
    'receivers:',
    '  - name: recorder',
    '    webhook_configs:',
    `      - url: ${JSON.stringify(o.webhookUrl)}`,
    '        send_resolved: true',
    o.extraConfig ?? '',
  ].join('\n');
}

/** A real Alertmanager on a free port of 127.0.0.1, without clustering, ready to answer. */
export async function startAlertmanager(o: AlertmanagerOptions, command = alertmanagerBinary()): Promise<RunningServer> {
  if (command === null) throw new Error('no alertmanager binary');
  const dir = await scratchDir('alertmanager');
  await writeFile(path.join(dir, 'alertmanager.yml'), alertmanagerConfig(o));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return runServer(
    'alertmanager',
    url,
    command,
    [
      `--config.file=${path.join(dir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--web.external-url=${url}`,
      // No gossip: one Alertmanager, no port of its own to collide on.
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    dir,
  ).ready('/-/ready');
}

export interface AmtoolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs amtool against `url` (an Alertmanager, or alertmon's /alertmanager/<id>) with `args`,
 * the token (if any) as its Bearer credentials; HOME is a folder of its own so that no
 * amtool.yml of the machine changes what it does.
 */
export async function amtool(url: string, args: readonly string[], options: { token?: string; command?: string | null } = {}): Promise<AmtoolResult> {
  const command = options.command === undefined ? amtoolBinary() : options.command;
  if (command === null) throw new Error('no amtool binary');
  const home = await scratchDir('amtool');
  const flags = [`--alertmanager.url=${url}`];
  if (options.token !== undefined) {
    const httpConfig = path.join(home, 'http.yml');
    await writeFile(httpConfig, `authorization:\n  credentials: ${JSON.stringify(options.token)}\n`);
    flags.push(`--http.config.file=${httpConfig}`);
  }
  try {
    return await new Promise((resolve) => {
      execFile(command, [...flags, ...args], { env: { ...process.env, HOME: home }, timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
