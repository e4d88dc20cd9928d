export * from './bus';
export * from './envelope';
export * from './trace-context';
export * from './consume';
export * from './bus-resource';
export * from './consumer-metrics';
export * from './bus-down';
export type { KV, KvEntry } from 'nats';
