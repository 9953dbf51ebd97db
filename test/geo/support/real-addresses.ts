/**
 * Real client addresses and the country the shipped database (@ip-location-db/geo-whois-asn-country-mmdb)
 * gives them, checked by looking them up; each belongs to a well-known operator of that country.
 */
export const REAL_ADDRESSES: [string, string, string][] = [
  ['194.25.2.129', 'DE', 'Deutsche Telekom resolver'],
  ['80.128.0.1', 'DE', 'Deutsche Telekom access'],
  ['2003::1', 'DE', 'Deutsche Telekom IPv6 (2003::/19)'],
  ['2a02:8108::1', 'DE', 'Vodafone Kabel Deutschland IPv6'],
  ['193.252.0.1', 'FR', 'Orange France'],
  ['82.64.0.1', 'FR', 'Free (Iliad)'],
  ['2a01:cb00::1', 'FR', 'Orange France IPv6'],
  ['2a01:e00::1', 'FR', 'Free IPv6'],
  ['8.8.8.8', 'US', 'Google Public DNS'],
  ['4.2.2.2', 'US', 'Level 3 resolver'],
  ['2001:4860:4860::8888', 'US', 'Google Public DNS IPv6'],
  ['2600::1', 'US', 'Sprint IPv6'],
  ['153.128.0.1', 'JP', 'NTT OCN'],
  ['210.130.0.1', 'JP', 'IIJ'],
  ['2001:240::1', 'JP', 'IIJ IPv6'],
  ['2400:4000::1', 'JP', 'NTT IPv6'],
];
