/**
 * Preloaded with `node --require` into the compiled worker by test/integration/compiledWorker.test.ts:
 * makes the process behave as if only the production dependencies were installed (`npm ci
 * --omit=dev`, as in the Dockerfile's final stage). Loading ts-node or typescript from anywhere,
 * or any devDependency of package.json from the project's own files, throws at once, so a
 * compiled worker that still needs one fails to start. Dependencies of dependencies resolve as
 * usual: npm installs those in production too. Plain JavaScript because it runs before anything
 * could compile TypeScript.
 */
'use strict';
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const devDependencies = Object.keys(require(path.join(root, 'package.json')).devDependencies);
const packageOf = (request) => (request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0]);
const alwaysForbidden = new Set(['ts-node', 'typescript']);

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const name = packageOf(request);
  const fromProject = parent && parent.filename && !parent.filename.split(path.sep).includes('node_modules');
  if (alwaysForbidden.has(name) || (fromProject && devDependencies.includes(name))) {
    throw new Error(`devDependency "${request}" required by ${parent && parent.filename}: the production image installs without devDependencies`);
  }
  return resolve.call(this, request, parent, ...rest);
};
