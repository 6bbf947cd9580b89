/**
 * Builds the workflow bundle once, at build time, so a production worker loads it from a file
 * (AGENT_TEAMS_WORKFLOW_BUNDLE, read by worker/createWorker.ts) instead of running webpack at
 * every start. Run after `npm run build`: `node dist/scripts/bundle-workflows.js [out-file]`
 * (default dist/workflow-bundle.js). It bundles the workflows module next to it (bundleTeamWorkflows resolves it relative to itself), so the compiled
 * script bundles the compiled JavaScript (dist/workflows) and ts-node would bundle the sources.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleTeamWorkflows } from '../worker/workflowBundle';

async function main(): Promise<void> {
  const outFile = resolve(process.argv[2] ?? resolve(__dirname, '..', 'workflow-bundle.js'));
  // With the project's workflow interceptors: the worker refuses a bundle without them (worker/workflowBundle.ts).
  const { code } = await bundleTeamWorkflows();
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, code);
  console.log(`workflow bundle: ${outFile} (${code.length} bytes)`);
}

main().catch((error: unknown) => {
  console.error('bundle-workflows failed:', error);
  process.exit(1);
});
