/**
 * The browser script, compiled from browser/panel.ts once per process with TypeScript's
 * transpiler (the CLI runs under ts-node, so TypeScript is there already); no bundler, no build step.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

let compiled: string | null = null;

export function panelScript(): string {
  compiled ??= ts.transpileModule(fs.readFileSync(path.join(__dirname, 'browser', 'panel.ts'), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.None, removeComments: true },
  }).outputText;
  return compiled;
}
