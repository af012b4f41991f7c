import { expect } from 'chai';
import type { HttpError } from '../../../src/http/httpError.js';
import { toHttpError } from '../../../src/http/middleware/errorHandler.js';
import { AddressRateLimiter, addressKey } from '../../../src/http/public/addressRateLimit.js';

describe('AddressRateLimiter', () => {
  // What a client is answered: the refusal as the error handler presents it.
  const refusal = (fn: () => void): HttpError | null => {
    try {
      fn();
      return null;
    } catch (err) {
      return toHttpError(err);
    }
  };

  it("allows a minute's worth at once, then one more as each share of the minute passes", () => {
    let now = 0;
    const limiter = new AddressRateLimiter(6, () => now);
    for (let i = 0; i < 6; i++) limiter.take('198.51.100.7');
    const refused = refusal(() => limiter.take('198.51.100.7'));
    expect(refused?.status).to.equal(429);
    expect(refused?.headers['Retry-After']).to.equal('10');
    // Another address has its own allowance.
    expect(refusal(() => limiter.take('198.51.100.8'))).to.equal(null);
    now += 9_000;
    expect(refusal(() => limiter.take('198.51.100.7'))?.headers['Retry-After']).to.equal('1');
    now += 1_000;
    expect(refusal(() => limiter.take('198.51.100.7'))).to.equal(null);
    expect(refusal(() => limiter.take('198.51.100.7'))?.status).to.equal(429);
  });

  it('limits IPv6 clients per /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::ffff')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:1:2:3:4')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressKey('::1')).to.equal('0:0:0:0::/64');
    expect(addressKey('::ffff:203.0.113.9')).to.equal('203.0.113.9');
    expect(addressKey('203.0.113.9')).to.equal('203.0.113.9');
  });
});
