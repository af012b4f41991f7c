// The real senders of Alertmanager alerts: a Prometheus server (Debian's prometheus) that
// evaluates a rule file and posts to `alerting.alertmanagers` (path_prefix and
// authorization.credentials, as alertmon's docs tell users), and vmalert (Debian's
// victoria-metrics) doing the same with -notifier.url and -notifier.bearerToken, evaluating
// its rules against a Prometheus.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { binary, freePort, type RunningServer, runServer, scratchDir } from './realServers.js';

export const prometheusBinary = () => binary('PROMETHEUS_PATH', 'prometheus');
export const vmalertBinary = () => binary('VMALERT_PATH', 'vmalert');

/** Where alerts go: an Alertmanager at `origin` (http://host:port), its API under `pathPrefix`. */
export interface AlertmanagerTarget {
  readonly origin: string;
  /** e.g. /alertmanager/<alert_source_id>; '' for a plain Alertmanager. */
  readonly pathPrefix?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
}

export interface PrometheusOptions {
  /** host:port of targets to scrape every second, as job `scrapeJob` (default "target"). */
  readonly scrapeTargets?: readonly string[];
  readonly scrapeJob?: string;
  /** A rule file's YAML (`groups:`…), evaluated every second. */
  readonly rules?: string;
  readonly alertmanager?: AlertmanagerTarget;
  /** How often firing alerts are sent again (Prometheus's default is 1m). */
  readonly resendDelay?: string;
  /** Remote-write of every sample to this URL (alertmon's /api/v1/write) with this bearer token, batches sent within 1 s. */
  readonly remoteWrite?: { readonly url: string; readonly token: string };
}

export function prometheusConfig(o: PrometheusOptions): string {
  const lines = ['global:', '  scrape_interval: 1s', '  evaluation_interval: 1s'];
  if (o.rules !== undefined) lines.push('rule_files: [rules.yml]');
  if (o.scrapeTargets !== undefined) {
    lines.push(
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(o.scrapeJob ?? 'target')}`,
      '    static_configs:',
      `      - targets: [${o.scrapeTargets.map((t) => JSON.stringify(t)).join(', ')}]`,
    );
  }
  const am = o.alertmanager;
  if (am !== undefined) {
    const origin = new URL(am.origin);
    lines.push(
      'alerting:',
      '  alertmanagers:',
      `    - scheme: ${origin.protocol.replace(':', '')}`,
      '      api_version: v2',
      `      path_prefix: ${JSON.stringify(am.pathPrefix ?? '/')}`,
      '      timeout: 5s',
      ...(am.token === undefined ? [] : ['      authorization:', `        credentials: ${JSON.stringify(am.token)}`]),
      '      static_configs:',
      `        - targets: [${JSON.stringify(origin.host)}]`,
    );
  }
  if (o.remoteWrite !== undefined) {
    lines.push(
      'remote_write:',
      `  - url: ${JSON.stringify(o.remoteWrite.url)}`,
      '    authorization:',
      `      credentials: ${JSON.stringify(o.remoteWrite.token)}`,
      '    queue_config:',
      '      batch_send_deadline: 1s',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A real Prometheus on a free port of 127.0.0.1, ready to answer. */
export async function startPrometheus(o: PrometheusOptions, command = prometheusBinary()): Promise<RunningServer> {
  if (command === null) throw new Error('no prometheus binary');
  const dir = await scratchDir('prometheus');
  await writeFile(path.join(dir, 'prometheus.yml'), prometheusConfig(o));
  if (o.rules !== undefined) await writeFile(path.join(dir, 'rules.yml'), o.rules);
  const port = await freePort();
  return runServer(
    'prometheus',
    `http://127.0.0.1:${port}`,
    command,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--rules.alert.resend-delay=${o.resendDelay ?? '1s'}`,
      '--log.level=warn',
    ],
    dir,
  ).ready('/-/ready');
}

export interface VmalertOptions {
  /** A rule file's YAML (`groups:`…), evaluated every second. */
  readonly rules: string;
  /** A Prometheus-compatible query API the rules are evaluated against (e.g. a startPrometheus URL). */
  readonly datasourceUrl: string;
  readonly alertmanager: AlertmanagerTarget;
}

/** vmalert on a free port of 127.0.0.1, ready to answer. */
export async function startVmalert(o: VmalertOptions, command = vmalertBinary()): Promise<RunningServer> {
  if (command === null) throw new Error('no vmalert binary');
  const dir = await scratchDir('vmalert');
  await writeFile(path.join(dir, 'rules.yml'), o.rules);
  const port = await freePort();
  const am = o.alertmanager;
  return runServer(
    'vmalert',
    `http://127.0.0.1:${port}`,
    command,
    [
      `-rule=${path.join(dir, 'rules.yml')}`,
      `-datasource.url=${o.datasourceUrl}`,
      `-notifier.url=${am.origin}${am.pathPrefix ?? ''}`,
      ...(am.token === undefined ? [] : [`-notifier.bearerToken=${am.token}`]),
      `-httpListenAddr=127.0.0.1:${port}`,
      '-evaluationInterval=1s',
      '-loggerLevel=WARN',
    ],
    dir,
  ).ready('/health');
}
