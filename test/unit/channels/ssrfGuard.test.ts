import { expect } from 'chai';
import { assertPublicUrl, BlockedTargetError, guardedLookup, isBlockedAddress } from '../../../src/channels/ssrfGuard.js';

describe('SSRF guard', () => {
  const blocked: Record<string, string[]> = {
    'IPv4 loopback': ['127.0.0.1', '127.255.255.254'],
    'IPv4 private': ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'IPv4 link-local and metadata': ['169.254.0.1', '169.254.169.254'],
    'carrier-grade NAT': ['100.64.0.1', '100.127.255.255'],
    'this network, unspecified': ['0.0.0.0', '0.1.2.3'],
    'IETF, documentation, benchmarking': ['192.0.0.192', '192.0.2.1', '198.18.0.1', '198.51.100.1', '203.0.113.1'],
    'multicast, reserved, broadcast': ['224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255'],
    'IPv6 loopback and unspecified': ['::1', '::', '0:0:0:0:0:0:0:1'],
    'IPv6 unique local, incl. AWS metadata': ['fc00::1', 'fd00:ec2::254', 'fdff:ffff::1'],
    'IPv6 link-local and site-local': ['fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1'],
    'IPv6 multicast and documentation': ['ff02::1', '2001:db8::1'],
    'IPv4-mapped IPv6': ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '0:0:0:0:0:ffff:c0a8:101'],
    'IPv4-compatible and translated IPv6': ['::127.0.0.1', '::ffff:0:10.0.0.1'],
    'NAT64 of a private IPv4': ['64:ff9b::127.0.0.1', '64:ff9b::a00:1'],
    '6to4 of a private IPv4': ['2002:7f00:1::1', '2002:a9fe:a9fe::'],
    Teredo: ['2001:0:4136:e378::1'],
    'not an address': ['localhost', '', '1.2.3'],
  };
  for (const [klass, addresses] of Object.entries(blocked)) {
    it(`refuses ${klass}`, () => {
      for (const address of addresses) expect(isBlockedAddress(address), address).to.equal(true);
    });
  }

  it('allows public unicast addresses, IPv4 and IPv6', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(isBlockedAddress(address), address).to.equal(false);
    }
  });

  it('refuses URL literals in every notation the URL parser accepts', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0177.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
    ]) {
      expect(() => assertPublicUrl(new URL(url)), url).to.throw(BlockedTargetError);
    }
    expect(() => assertPublicUrl(new URL('https://93.184.216.34/hook'))).not.to.throw();
    expect(() => assertPublicUrl(new URL('https://example.com/hook'))).not.to.throw();
  });

  it('resolves host names and refuses those that resolve only to blocked addresses', async () => {
    const lookup = (host: string, all: boolean) =>
      new Promise<{ err: Error | null; address: unknown }>((resolve) => guardedLookup(host, { all }, (err, address) => resolve({ err, address })));
    for (const all of [false, true]) {
      const { err } = await lookup('localhost', all);
      expect(err).to.be.instanceOf(BlockedTargetError);
    }
  });
});
