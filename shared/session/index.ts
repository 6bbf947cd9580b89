export * from './state';
export * from './events';
export * from './apply';
export * from './decide';
export * from './queries';
