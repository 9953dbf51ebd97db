export * from './duration';
export * from './overrides';
export * from './safety';
export * from './shifts';
