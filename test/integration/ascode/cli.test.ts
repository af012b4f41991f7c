// The command line as a user runs it: a child process (the package's bin, from its source)
// against the running service, with ALERTMON_URL and ALERTMON_TOKEN, on files in a folder.
// export > file, edit the file, plan (exit 2, the diff printed), apply, plan (exit 0).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../../../src/paths.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { makeFixture, type Fixture } from './fixture.js';

/** tsx's loader by file URL: the child runs in the user's folder, where no node_modules is. */
const TSX = pathToFileURL(createRequire(path.join(projectRoot, 'package.json')).resolve('tsx')).href;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `alertmon ARGS` in `cwd`, as a user's shell would start it (stdout not a terminal: no colours). */
function alertmon(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, path.join(projectRoot, 'scripts/cli/alertmon.ts'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A command on a pseudo-terminal (`script -qec`), as a person's shell runs it: stdout is a TTY. */
function runScript(command: string, env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
  });
}

describe('the alertmon command line', function () {
  this.timeout(180_000);
  let svc: TestService;
  let env: Record<string, string>;
  let dir: string;
  let fixture: Fixture;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    const token = await svc.tokenFor('ascode-cli-ws');
    fixture = await makeFixture(svc, token);
    env = { ALERTMON_URL: svc.url, ALERTMON_TOKEN: token };
    dir = await mkdtemp(path.join(tmpdir(), 'alertmon-cli-'));
  });
  after(async () => svc?.close());

  it('export > file, edit, plan (exit 2 with the diff), apply, plan (exit 0)', async () => {
    const exported = await alertmon(['export'], env, dir);
    expect(exported.code, exported.stderr).to.equal(0);
    const file = path.join(dir, 'alerting.yaml');
    await writeFile(file, exported.stdout);
    const doc = parse(await readFile(file, 'utf8'));
    expect(doc.version).to.equal(1);
    expect(exported.stdout).not.to.include('hooks.slack.com');

    const clean = await alertmon(['plan', 'alerting.yaml'], env, dir);
    expect(clean.code, clean.stdout + clean.stderr).to.equal(0);
    expect(clean.stdout).to.include('No changes');

    // The edit a reviewer sees: a threshold, a new silence, a secret from the environment.
    const policy = doc.policies.find((p: { key: string }) => p.key === 'checkout-slow');
    policy.threshold = 42;
    doc.silences.push({ key: 'release-freeze', ends_at: new Date(Date.now() + 86_400_000).toISOString(), comment: 'freeze' });
    const slack = doc.destinations.find((d: { key: string }) => d.key === 'ops-slack');
    slack.url = { env: 'SLACK_URL' };
    await writeFile(file, stringify(doc));

    const missingSecret = await alertmon(['plan', 'alerting.yaml'], env, dir);
    expect(missingSecret.code).to.equal(1);
    expect(missingSecret.stderr).to.include('SLACK_URL');

    const withSecret = { ...env, SLACK_URL: fixture.slackUrl.replace('abcdefghijklmnopqrstuvwx', 'zyxwvutsrqponmlkjihgfedc') };
    const planned = await alertmon(['plan', 'alerting.yaml'], withSecret, dir);
    expect(planned.code, planned.stdout + planned.stderr).to.equal(2);
    expect(planned.stdout).to.include('~ policies/checkout-slow');
    expect(planned.stdout).to.match(/threshold: 20 -> 42/);
    expect(planned.stdout).to.include('+ silences/release-freeze');
    expect(planned.stdout).to.match(/~ destinations\/ops-slack\n {4}url: \(secret\) -> \(secret\)/);
    expect(planned.stdout).not.to.include('zyxwvu');
    expect(planned.stdout).to.include('Plan: 1 to create, 2 to update, 0 to delete.');
    expect(planned.stdout).not.to.include('\u001b['); // not a terminal: no colours

    const applied = await alertmon(['apply', 'alerting.yaml'], withSecret, dir);
    expect(applied.code, applied.stdout + applied.stderr).to.equal(0);
    expect(applied.stderr).to.include('Applying 3 change(s)');
    expect(applied.stdout).to.include('Applied 3 change(s)');
    const stored = (await svc.request('GET', `/v1.0/policies/${fixture.ids.policy}`, { token: env.ALERTMON_TOKEN })).body;
    expect(stored.threshold).to.equal(42);

    const after = await alertmon(['plan', 'alerting.yaml'], withSecret, dir);
    expect(after.code, after.stdout).to.equal(0);
    expect(after.stdout).to.include('No changes');
  });

  it('colours the diff on a terminal (a pseudo-terminal from util-linux script), and not with NO_COLOR', async () => {
    const exported = await alertmon(['export', '--json'], env, dir);
    const doc = JSON.parse(exported.stdout);
    doc.policies[0].description = 'coloured';
    await writeFile(path.join(dir, 'tty.json'), JSON.stringify(doc));
    const command = [process.execPath, '--import', TSX, path.join(projectRoot, 'scripts/cli/alertmon.ts'), 'plan', 'tty.json'].map((a) => `'${a}'`).join(' ');
    const onTerminal = (extra: Record<string, string>) => runScript(command, { ...env, ...extra }, dir);
    const coloured = await onTerminal({});
    expect(coloured.code, coloured.stdout).to.equal(2);
    expect(coloured.stdout).to.include('\u001b[33m~ policies/');
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain.stdout).to.include('~ policies/');
    expect(plain.stdout).not.to.include('\u001b[');
  });

  it('exits 1 with the paths into the file on an invalid file, and on a wrong token', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        policies: [{ key: 'x', title: 'X', period: 'minute', aggregate: 'sum', condition: 'gt', threshold: 'high', severity: 'info' }],
      }),
    );
    const bad = await alertmon(['plan', 'bad.json'], env, dir);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('/policies/0/threshold');
    const denied = await alertmon(['plan', 'bad.json'], { ...env, ALERTMON_TOKEN: 'wrong' }, dir);
    expect(denied.code).to.equal(1);
    expect(denied.stderr).to.include('401');
    const usage = await alertmon(['frobnicate'], env, dir);
    expect(usage.code).to.equal(1);
    expect(usage.stderr).to.include('usage: alertmon');
  });
});
