/**
 * The browser script, compiled from browser/panel.ts once per process with TypeScript's
 * transpiler (the CLI runs under ts-node, so TypeScript is there already); no bundler, no build step.
 * TypeScript is loaded only when the panel first serves its script, not when the CLI starts: the
 * compiled CLI in the production image (dist/cli, installed without devDependencies) runs every
 * other command without it, and the panel is run from a checkout (`npm run cli -- panel`).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as TypeScript from 'typescript';

let compiled: string | null = null;

export function panelScript(): string {
  if (compiled === null) {
    const ts = createRequire(__filename)('typescript') as typeof TypeScript;
    compiled = ts.transpileModule(fs.readFileSync(path.join(__dirname, 'browser', 'panel.ts'), 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.None, removeComments: true },
    }).outputText;
  }
  return compiled;
}
