/** The authoritative DNS server (docs/dns.md): wire parsing, the packet handler, the UDP/TCP sockets. */
export { DnsServer, type DnsServerOptions, type ListenAddress, type TcpOptions, type BoundAddress } from './server';
export { Responder, type ResponderOptions, type ResolveFn, type SoaConfig, type ResponderStats, type Transport } from './responder';
export { parseQuery, ecsAddressText, type ParsedQuery, type Edns, type ClientSubnet } from './wire';
export { DnsCountsAggregate, type DnsCounts } from './counts';
export { TrafficStore, TrafficTallies, TrafficTally, TRAFFIC_BUCKET_MS, TRAFFIC_EXACT, TRAFFIC_STRIDE, type TrafficRow } from './traffic';
