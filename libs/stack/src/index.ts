export * from './ports';
export * from './services';
export * from './embedded';
export * from './tools';
