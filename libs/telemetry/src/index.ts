export * from './logger';
export * from './health';
export * from './shutdown';
export * from './run-service';
export * from './background';
export * from './start-service';
export * from './outage-log';
export * from './metrics';
