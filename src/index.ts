/** tmkit's public API: the document model, validation, routing and the constructs. */
export * from './core/model/types';
export * from './core/model/normalize';
export * from './core/model/names';
