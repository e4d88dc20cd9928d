export * from './errors';
export * from './define';
export * from './common';
export * from './key';
export * from './pdf';
export * from './document';
export * from './streams';
export * from './template';
