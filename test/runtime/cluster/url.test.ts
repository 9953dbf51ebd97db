import { parseEtcdUrl } from '../../../src/runtime/etcd/url';

describe('--store etcd://… parsing', () => {
  test.each([
    ['etcd://127.0.0.1:2379', { hosts: ['http://127.0.0.1:2379'], prefix: '/tmkit/', tls: false }],
    ['etcd://a.example:2379,b.example:2379/', { hosts: ['http://a.example:2379', 'http://b.example:2379'], prefix: '/tmkit/', tls: false }],
    ['etcds://[::1]:2379/prod/tm', { hosts: ['https://[::1]:2379'], prefix: '/prod/tm/', tls: true }],
    [' etcd://10.0.0.5:2379 , 10.0.0.6:2379/x/ ', { hosts: ['http://10.0.0.5:2379', 'http://10.0.0.6:2379'], prefix: '/x/', tls: false }],
  ])('%s', (url, want) => {
    expect(parseEtcdUrl(url)).toEqual(want);
  });

  test.each([
    ['http://127.0.0.1:2379', /expected etcd:\/\/HOST:PORT/],
    ['etcd://', /no etcd endpoint; write etcd:\/\/127\.0\.0\.1:2379/],
    ['etcd://127.0.0.1', /'127\.0\.0\.1' is not HOST:PORT \(etcd's client port, usually 2379/],
    ['etcd://127.0.0.1:99999', /is not HOST:PORT/],
    ['etcd://bad_host!:2379', /is not a host name or IP address/],
    ['etcd://127.0.0.1:2379/pre fix', /the key prefix '\/pre fix' may hold only/],
  ])('%s is refused, naming the flag and the rule', (url, msg) => {
    expect(() => parseEtcdUrl(url)).toThrow(msg);
    expect(() => parseEtcdUrl(url)).toThrow(/^--store /);
  });
});
