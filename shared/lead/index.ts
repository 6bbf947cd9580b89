export * from './apply';
export * from './decide';
export * from './events';
export * from './parse';
export * from './queries';
export * from './state';
export * from './nextStep';
