import { expect } from 'chai';
import { classifyHttpStatus, parseRetryAfter } from '../../../src/channels/outcome.js';
import { maxTries, nextStep, retryDelayMs } from '../../../src/delivery/retryPolicy.js';

const SCHEDULE = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

describe('retry policy', () => {
  it('delivers on 2xx, retries 429 and 5xx, gives up on other statuses', () => {
    expect(classifyHttpStatus(200, 'ok').result).to.equal('delivered');
    expect(classifyHttpStatus(204, null).result).to.equal('delivered');
    for (const status of [429, 500, 502, 503, 504]) expect(classifyHttpStatus(status, null).result, String(status)).to.equal('retry');
    for (const status of [400, 401, 403, 404, 410, 413, 422]) expect(classifyHttpStatus(status, null).result, String(status)).to.equal('final');
    expect(classifyHttpStatus(429, null)).to.include({ reason: 'rate_limited' });
    expect(classifyHttpStatus(503, null)).to.include({ reason: 'server_error' });
    expect(classifyHttpStatus(404, 'no_service')).to.include({ reason: 'rejected', message: 'rejected (HTTP 404): no_service' });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-21T14:00:00Z');
    expect(parseRetryAfter('30', now)).to.equal(30_000);
    expect(parseRetryAfter('1.5', now)).to.equal(1_500);
    expect(parseRetryAfter('Sat, 21 Nov 2026 14:02:00 GMT', now)).to.equal(120_000);
    expect(parseRetryAfter('soon', now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
    expect(parseRetryAfter('999999999', now)).to.equal(24 * 3600_000);
  });

  it('follows the schedule with ±20 % jitter, Retry-After as a lower bound, six tries at most', () => {
    expect(maxTries(SCHEDULE)).to.equal(6);
    SCHEDULE.forEach((base, i) => {
      expect(retryDelayMs(i + 1, SCHEDULE, null, () => 0)).to.equal(base * 0.8);
      expect(retryDelayMs(i + 1, SCHEDULE, null, () => 1)).to.equal(base * 1.2);
    });
    expect(retryDelayMs(6, SCHEDULE, null)).to.equal(null);
    expect(retryDelayMs(1, SCHEDULE, 120_000, () => 0.5)).to.equal(120_000);
    expect(retryDelayMs(2, SCHEDULE, 1_000, () => 0.5)).to.equal(60_000);
  });

  it('decides the next step: retry while tries are left, never for a test or a final error', () => {
    const busy = classifyHttpStatus(503, null);
    expect(nextStep(busy, 1, SCHEDULE, true).status).to.equal('failed');
    expect(nextStep(busy, 6, SCHEDULE, true).status).to.equal('exhausted');
    expect(nextStep(busy, 1, SCHEDULE, false).status).to.equal('exhausted');
    expect(nextStep(classifyHttpStatus(400, null), 1, SCHEDULE, true).status).to.equal('exhausted');
    expect(nextStep(classifyHttpStatus(200, null), 3, SCHEDULE, true).status).to.equal('delivered');
  });
});
