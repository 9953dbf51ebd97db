/** tmkit's public API: the document model, validation, routing and the constructs. */
export * from './core/model/types';
export * from './core/model/normalize';
export * from './core/model/names';
export * from './core/validate';
export * from './core/routing';
export * from './core/health';
export * from './core/routing';
export * from './core/health';
