export { defineZone, zoneProblems, negativeTtl, nextSerial, withSerial, ZoneConfigError, SOA_DEFAULTS } from './zone';
export type { Zone, ZoneConfig, ZoneProblem, ZoneRecord, SoaConfig, SoaData } from './zone';
export { lookup } from './lookup';
export type { ZoneQuestion, ZoneAnswer, ZoneOutcome, ZoneMatch, RouteFn } from './lookup';
