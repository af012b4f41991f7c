import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.role).to.equal('all');
    expect(config.http.port).to.equal(8080);
    expect(config.http.host).to.equal('127.0.0.1');
    expect(config.http.logsPort).to.equal(null);
    expect(config.dataDir).to.equal(path.resolve('./data'));
    expect(config.clickhouse).to.deep.equal({ url: null, user: 'default', password: '', database: 'alertmon' });
    expect(config.postgres).to.deep.equal({ url: null, embeddedSharedBuffersMb: 128 });
    expect(config.http.adminToken).to.equal(null);
    expect(config.evaluation.intervalMs).to.equal(15_000);
    expect(config.evaluation.graceMs).to.equal(5_000);
    expect(config.channels.slackWebhookOrigin).to.equal('https://hooks.slack.com');
    expect(config.channels.discordWebhookOrigins).to.deep.equal(['https://discord.com', 'https://discordapp.com']);
    expect(config.channels.telegramApiOrigin).to.equal('https://api.telegram.org');
    expect(config.delivery.allowPrivateTargets).to.equal(false);
    expect(config.analyst).to.deep.equal({ maxMemoryBytes: 1024 ** 3, maxConcurrentQueries: 2 });
  });

  it('reads the analyst SQL bounds and refuses ones that bound nothing', () => {
    const config = loadConfig({ ANALYST_MAX_MEMORY_BYTES: String(256 * 1024 ** 2), ANALYST_MAX_CONCURRENT_QUERIES: '4' });
    expect(config.analyst).to.deep.equal({ maxMemoryBytes: 256 * 1024 ** 2, maxConcurrentQueries: 4 });
    for (const bad of ['0', '1e400', 'lots']) expect(() => loadConfig({ ANALYST_MAX_MEMORY_BYTES: bad })).to.throw(ConfigError, /ANALYST_MAX_MEMORY_BYTES/);
    expect(() => loadConfig({ ANALYST_MAX_CONCURRENT_QUERIES: '0' })).to.throw(ConfigError, /ANALYST_MAX_CONCURRENT_QUERIES/);
  });

  it('reads every variable it documents', () => {
    const config = loadConfig({
      ROLE: 'ingest',
      PORT: '9000',
      HOST: '0.0.0.0',
      LOGS_PORT: '9001',
      DATA_DIR: '/var/lib/alertmon',
      CLICKHOUSE_URL: 'http://ch:8123',
      CLICKHOUSE_USER: 'u',
      CLICKHOUSE_PASSWORD: 'p',
      CLICKHOUSE_DATABASE: 'metrics',
      DATABASE_URL: 'postgres://pg/alertmon',
      EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: '32',
      ADMIN_TOKEN: 'a-long-enough-admin-token',
      DISCORD_WEBHOOK_ORIGINS: 'http://127.0.0.1:9999, https://discord.com',
      ALLOW_PRIVATE_TARGETS: '1',
      INGEST_FLUSH_INTERVAL_MS: '10',
      INGEST_MAX_BATCH_RECORDS: '2000',
      INGEST_WORKSPACE_RECORDS_PER_S: '5000',
    });
    expect(config.role).to.equal('ingest');
    expect(config.http.logsPort).to.equal(9001);
    expect(config.clickhouse).to.deep.equal({ url: 'http://ch:8123', user: 'u', password: 'p', database: 'metrics' });
    expect(config.postgres).to.deep.equal({ url: 'postgres://pg/alertmon', embeddedSharedBuffersMb: 32 });
    expect(config.channels.discordWebhookOrigins).to.deep.equal(['http://127.0.0.1:9999', 'https://discord.com']);
    expect(config.delivery.allowPrivateTargets).to.equal(true);
    expect(config.ingest.flushIntervalMs).to.equal(10);
    expect(config.ingest.maxBatchRecords).to.equal(2000);
    expect(config.ingest.workspaceRecordsPerS).to.equal(5000);
    expect(config.ingest.journalDir).to.equal('/var/lib/alertmon/journal');
  });

  it('leaves the workspace rate to the fair share when unset, and keeps the batch limit within 250 to 10,000', () => {
    const config = loadConfig({ DATA_DIR: '/d', JOURNAL_DIR: '/j' });
    expect(config.ingest.workspaceRecordsPerS).to.equal(null);
    // Both SDKs send 500 records a request by default.
    expect(config.ingest.maxBatchRecords).to.equal(1000);
    expect(config.ingest.journalDir).to.equal('/j');
    for (const bad of ['249', '10001']) expect(() => loadConfig({ INGEST_MAX_BATCH_RECORDS: bad })).to.throw(ConfigError, /INGEST_MAX_BATCH_RECORDS/);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        ROLE: 'boss',
        CLICKHOUSE_URL: 'ftp://ch',
        DATABASE_URL: 'mysql://root:hunter2@db/x',
        ADMIN_TOKEN: 'short',
        ALLOW_PRIVATE_TARGETS: 'maybe',
        SLACK_WEBHOOK_ORIGIN: 'https://hooks.example.com/services',
        CLICKHOUSE_DATABASE: 'drop table',
        EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: '0',
      });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of [
      'PORT',
      'ROLE',
      'CLICKHOUSE_URL',
      'DATABASE_URL',
      'ADMIN_TOKEN',
      'ALLOW_PRIVATE_TARGETS',
      'SLACK_WEBHOOK_ORIGIN',
      'CLICKHOUSE_DATABASE',
      'EMBEDDED_POSTGRES_SHARED_BUFFERS_MB',
    ]) {
      expect(
        problems.some((p) => p.startsWith(name)),
        `a problem names ${name}`,
      ).to.equal(true);
    }
    expect(problems).to.have.length(9);
    expect((error as Error).message, 'no password in the message').not.to.include('hunter2');
    expect((error as Error).message).not.to.include('short"');
  });

  it('is frozen', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).to.equal(true);
    expect(Object.isFrozen(config.clickhouse)).to.equal(true);
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).to.throw(TypeError);
  });
});
