export * from './catalog';
export * from './instruments';
export * from './provider';
export * from './cached-reading';
