import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkTarget, isAddressAllowed, parseTargetUrl, TargetRefusedError } from './ssrf';

const none = new BlockList();

describe('SSRF rules for endpoint URLs', () => {
  it.each([
    ['ftp://example.com/x', 'must be http or https'],
    ['file:///etc/passwd', 'must be http or https'],
    ['https://user:pw@example.com/', 'must not contain credentials'],
    ['not a url', 'not a URL'],
  ])('refuses %s by its syntax', (raw, message) => {
    expect(() => parseTargetUrl(raw)).toThrow(message);
  });

  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    '64:ff9b::a9fe:a9fe',
  ])('refuses the address %s', (address) => {
    expect(isAddressAllowed(address, none)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(isAddressAllowed(address, none)).toBe(true);
  });

  it('allows exactly the networks the operator lists', () => {
    const allow = new BlockList();
    allow.addSubnet('127.0.0.3', 32, 'ipv4');
    expect(isAddressAllowed('127.0.0.3', allow)).toBe(true);
    expect(isAddressAllowed('127.0.0.1', allow)).toBe(false);
  });

  it('refuses IP literals in brackets and names that resolve to a refused address', async () => {
    await expect(checkTarget('http://[::1]:8080/', none)).rejects.toThrow('::1');
    await expect(checkTarget('http://169.254.169.254/latest/meta-data', none)).rejects.toThrow(
      TargetRefusedError,
    );
    // The real resolver: localhost is loopback.
    await expect(checkTarget('http://localhost:9999/', none)).rejects.toThrow(/localhost resolves to/);
    // One refused address among public ones is enough to refuse.
    const lookup = () =>
      Promise.resolve([
        { address: '93.184.215.14', family: 4 as const },
        { address: '10.1.2.3', family: 4 as const },
      ]);
    await expect(checkTarget('https://mixed.example/', none, lookup)).rejects.toThrow('10.1.2.3');
    await expect(checkTarget('https://nowhere.invalid/', none)).rejects.toThrow('does not resolve');
  });

  it('answers the checked addresses of an allowed URL', async () => {
    const lookup = () => Promise.resolve([{ address: '93.184.215.14', family: 4 as const }]);
    const { url, addresses } = await checkTarget('https://hooks.example/x?y=1', none, lookup);
    expect(url.pathname).toBe('/x');
    expect(addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});
