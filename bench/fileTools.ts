/**
 * The file tools' cost of containment through descriptors (issue 20): one read_file and one
 * write_file of a 4 KiB file two directories deep, against a baseline that does what the tools did
 * before: check the path string (realpath of its existing part), then let the kernel walk that
 * string again for each stat, read, write and rename. Both sides are tools with the same contracts
 * run through the same `runToolCall` (parsing, validation, rendering), so only the filesystem work
 * differs. Rounds alternate the two sides; ratios are medians of paired rounds. Needs no server:
 * `npx ts-node bench/fileTools.ts` runs it alone, `npm run bench` as its row 6.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkToolContext } from '../activities/tools/context';
import { createFileTools } from '../activities/tools/files';
import { checkoutPaths } from '../activities/tools/paths';
import { readFileContract, writeFileContract } from '../shared/agent/workTools';
import { type AnyTool, defineTool, runToolCall } from '../shared/tools/tool';

const ROUNDS = Number(process.env.BENCH_FILE_ROUNDS ?? 7);
const OPS = Number(process.env.BENCH_FILE_OPS ?? 500);
const FILE = 'src/module/file.txt';
const CONTENT = 'x'.repeat(4095) + '\n';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const version = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** read_file and write_file as they were: the same checks and hashing on path strings, no descriptors. */
function pathStringBaseline(root: string) {
  const paths = checkoutPaths(root);
  const real = (input: string, base: string) => paths.containedRealPath(path.resolve(base, input), input);
  const read = defineTool({
    ...readFileContract,
    async execute(input, context: WorkToolContext) {
      const file = await real(input.path, context.base);
      await fsp.stat(file);
      const bytes = await fsp.readFile(file);
      const content = bytes.toString('utf8');
      return { path: input.path, content, version: version(bytes), totalLines: content.split('\n').length - 1, truncated: false };
    },
  });
  const write = defineTool({
    ...writeFileContract,
    async execute(input, context: WorkToolContext) {
      const file = await real(input.path, context.base);
      const current = await fsp.readFile(file);
      if (version(current) !== input.version) throw new Error('stale');
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const mode = (await fsp.stat(file)).mode & 0o7777;
      const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
      await fsp.writeFile(temporary, input.content, { flag: 'wx', mode });
      await fsp.chmod(temporary, mode);
      await fsp.rename(temporary, file);
      return { path: input.path, version: version(input.content), bytes: Buffer.byteLength(input.content) };
    },
  });
  return { read_file: read, write_file: write } as Record<string, AnyTool<WorkToolContext>>;
}

async function timed(ops: number, body: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await body(i);
  return Number(process.hrtime.bigint() - start) / 1e3 / ops; // µs per op
}

export async function benchFileTools(): Promise<string[][]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-file-tools-'));
  try {
    const root = path.join(scratch, 'checkout');
    fs.mkdirSync(path.join(root, path.dirname(FILE)), { recursive: true });
    fs.writeFileSync(path.join(root, FILE), CONTENT);
    const [readFile, writeFile] = createFileTools(checkoutPaths(root));
    const tools = { read_file: readFile, write_file: writeFile } as Record<string, AnyTool<WorkToolContext>>;
    const baselineTools = pathStringBaseline(root);
    const call = async (set: Record<string, AnyTool<WorkToolContext>>, name: string, args: unknown) => {
      const outcome = await runToolCall(set[name] as AnyTool<WorkToolContext>, JSON.stringify(args), { base: root, cwd: '.' });
      if (!outcome.ok) throw new Error(outcome.text);
      return JSON.parse(outcome.text) as { version: string };
    };
    const sides = {
      read: { tools: [] as number[], baseline: [] as number[] },
      write: { tools: [] as number[], baseline: [] as number[] },
    };
    let current = version(CONTENT);
    const next = (i: number) => `${CONTENT.slice(0, -8)}${String(i).padStart(7, '0')}\n`;
    for (let round = 0; round <= ROUNDS; round++) {
      const warm = round === 0; // the first round warms both sides and is not counted
      const readTools = await timed(OPS, () => call(tools, 'read_file', { path: FILE }));
      const readBaseline = await timed(OPS, () => call(baselineTools, 'read_file', { path: FILE }));
      const writeTools = await timed(OPS, async (i) => {
        current = (await call(tools, 'write_file', { path: FILE, content: next(i), version: current })).version;
      });
      const writeBaseline = await timed(OPS, async (i) => {
        current = (await call(baselineTools, 'write_file', { path: FILE, content: next(i + OPS), version: current })).version;
      });
      if (warm) continue;
      sides.read.tools.push(readTools);
      sides.read.baseline.push(readBaseline);
      sides.write.tools.push(writeTools);
      sides.write.baseline.push(writeBaseline);
    }
    const row = (label: string, side: { tools: number[]; baseline: number[] }) => [
      label,
      median(side.tools).toFixed(0),
      median(side.baseline).toFixed(0),
      median(side.tools.map((t, round) => t / (side.baseline[round] ?? NaN))).toFixed(2),
    ];
    return [
      row(`read_file of a 4 KiB file, 2 directories deep (median µs/op) vs the path-string check and read it replaced`, sides.read),
      row(`write_file of a 4 KiB file, version-checked (median µs/op) vs the path-string check, read, temp file and rename it replaced`, sides.write),
    ];
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchFileTools()
    .then((rows) => {
      console.log(`file tools: ${ROUNDS} rounds x ${OPS} ops, ${process.version}`);
      for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
