// Per-client-address rate limit of the routes anyone may call (share links): a token bucket
// per address, refilled continuously, holding at most one minute's allowance. IPv6 clients
// are limited per /64, the block one subscriber usually holds, so rotating addresses within
// it gains nothing. The address is the socket's peer: behind a reverse proxy every client
// shares the proxy's bucket (see docs/console.md).
import { isIPv6 } from 'node:net';
import { busy } from '../../errors.js';

/** Addresses remembered at most; past it the least recently seen are forgotten (a full bucket again). */
const MAX_ADDRESSES = 100_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** The key an address is limited under: IPv4 as is, IPv6 by its first 64 bits. */
export function addressKey(address: string): string {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  if (!isIPv6(plain)) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = plain.includes('::') ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups] : headGroups;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export class AddressRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one request from the address's allowance, or throws `busy` (429 with Retry-After). */
  take(address: string): void {
    const key = addressKey(address);
    const now = this.now();
    const known = this.buckets.get(key);
    const bucket = known ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    // Re-inserting keeps the map ordered by last use, so the oldest entry is the first one.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
    throw busy('rate_limited', `Too many requests from this address; retry in ${retryAfter} s.`, retryAfter);
  }
}
