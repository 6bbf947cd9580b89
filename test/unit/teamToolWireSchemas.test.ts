/**
 * The Team tools take exactly what their Updates take: for every tool backed by an Update with a
 * wire schema, a set of arguments is accepted by the tool iff the wire accepts it (with the
 * runtime's `caller` added, and the tool's one documented default filled in), and what the tool
 * sends after parsing is accepted by the wire too.
 */
import fc from 'fast-check';
import { TEAM_TOOLS } from '../../shared/agent/teamTools';
import {
  callerOnlySchema,
  interruptRequestSchema,
  sendEnvelopeSchema,
  setBudgetRequestSchema,
  spawnRequestSchema,
  waitRequestSchema,
} from '../../shared/contract/requests';
import { TASK_COMMAND_BODIES } from '../../shared/contract/taskCommands';
import { TASK_STATUSES } from '../../shared/contract/vocabulary';

type Args = Record<string, unknown>;
interface Row {
  /** Does the Lead's parse of this Update accept these arguments (as the runtime sends them)? */
  wire(args: Args): boolean;
  /** Candidate values per field; samples take any subset of the fields. */
  fields: Record<string, readonly unknown[]>;
  /** Defaults only the tool fills in (a model may leave them out; the wire requires them). */
  toolDefaults?: Args;
}

const attributed = (schema: { safeParse(input: unknown): { success: boolean } }) => (args: Args) => schema.safeParse({ caller: 'lead', ...args }).success;
const body = (kind: keyof typeof TASK_COMMAND_BODIES) => (args: Args) => TASK_COMMAND_BODIES[kind].safeParse(args).success;

const x = (n: number) => 'x'.repeat(n);
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const names = ['', 'a', 'api-writer', 'lead', x(64), x(65), x(100), x(101), 7, null];
const positiveInts = [1, 2, 0, -1, 1.5, Number.MAX_SAFE_INTEGER, 2 ** 53, '1', null];
const taskRef = { taskId: positiveInts, expectedRevision: positiveInts };
const taskFields = {
  subject: ['a', '  padded  ', '   ', '', x(200), ` ${x(200)} `, x(201), 3, null],
  description: ['', 'd', x(20_000), x(20_001), null],
  dependencies: [[], [1, 2], [0], ids(100), ids(101), 'x'],
  writeScopes: [[], ['src/'], [x(500)], [x(501)], Array<string>(50).fill('a/'), Array<string>(51).fill('a/')],
};

const ROWS: Record<string, Row> = {
  spawn_teammate: {
    wire: attributed(spawnRequestSchema),
    fields: { name: names, context: ['fresh', 'fork', 'other', null], message: ['hi', { a: 1 }, null, [1]], model: [null, '', 'm', x(200), x(201), 3] },
  },
  // messageId is the runtime's (the Update id), like caller: the tool does not offer it.
  send_message: { wire: attributed(sendEnvelopeSchema), fields: { to: names, content: ['hi', { a: [1] }, null] } },
  create_task: { wire: body('createTask'), fields: taskFields },
  edit_task: { wire: body('editTask'), fields: { ...taskRef, ...taskFields } },
  claim_task: { wire: body('claimTask'), fields: taskRef },
  assign_task: { wire: body('assignTask'), fields: { ...taskRef, owner: names } },
  release_task: { wire: body('releaseTask'), fields: taskRef },
  set_task_status: { wire: body('transitionTask'), fields: { ...taskRef, status: [...TASK_STATUSES, 'done', null] } },
  delete_task: { wire: body('deleteTask'), fields: taskRef },
  list_tasks: { wire: attributed(callerOnlySchema), fields: {} },
  wait_agent: {
    wire: attributed(waitRequestSchema),
    fields: { timeoutMs: [0, 1, 1.5, 300_000, 3_600_000, 3_600_001, -1, '5', null], kinds: [[], ['task'], ['roster', 'mailbox'], ['bogus'], 'task'] },
    toolDefaults: { timeoutMs: 300_000 },
  },
  interrupt_teammate: { wire: attributed(interruptRequestSchema), fields: { name: names } },
  lower_budget: {
    wire: attributed(setBudgetRequestSchema),
    fields: {
      name: names,
      budget: [{}, { calls: 3 }, { calls: 0 }, { tokens: 1.5 }, { costUsd: 0.5, turns: 2 }, { costUsd: 0 }, { minutes: 1 }, null, 'calls=3'],
    },
  },
};
/** Tools that call no Update with a wire body: read_roster reads the roster through the context. */
const WITHOUT_WIRE_SCHEMA = ['read_roster'];

const toolNamed = (name: string) => {
  const tool = TEAM_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no Team tool ${name}`);
  return tool;
};

const rowNamed = (name: string): Row => {
  const row = ROWS[name];
  if (!row) throw new Error(`no wire row for ${name}`);
  return row;
};

function agrees(name: string, args: Args): void {
  const row = rowNamed(name);
  const parsed = toolNamed(name).input.safeParse(args);
  expect({ name, args, tool: parsed.success }).toEqual({ name, args, tool: row.wire({ ...row.toolDefaults, ...args }) });
  // What the tool sends (defaults filled, subject trimmed) is what the wire takes.
  if (parsed.success) expect({ name, sent: parsed.data, wire: row.wire(parsed.data as Args) }).toEqual({ name, sent: parsed.data, wire: true });
}

test('every Team tool is either checked against its wire schema or has none', () => {
  expect([...Object.keys(ROWS), ...WITHOUT_WIRE_SCHEMA].sort()).toEqual(TEAM_TOOLS.map((t) => t.name).sort());
});

test.each(Object.keys(ROWS))('%s accepts exactly what its Update accepts', (name) => {
  const { fields } = rowNamed(name);
  const arbitraries: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
    Object.entries(fields).map(([field, values]) => [field, fc.constantFrom(...values)]),
  );
  const record: fc.Arbitrary<Args> = fc.record(arbitraries, { requiredKeys: [] });
  const sample = fc.tuple(record, fc.boolean()).map(([args, extraKey]): Args => (extraKey ? { ...args, bogus: 1 } : args));
  fc.assert(
    fc.property(sample, (args) => agrees(name, args)),
    { numRuns: 400 },
  );
});

test("the drift that was: names up to the wire's 100 characters, a null model, a trimmed subject, an edit that changes something", () => {
  const cases: [tool: string, args: Args, accepted: boolean][] = [
    ['spawn_teammate', { name: x(100), message: 'hi' }, true],
    ['spawn_teammate', { name: x(101), message: 'hi' }, false],
    ['spawn_teammate', { name: 'api-writer', message: 'hi', model: null }, true],
    ['create_task', { subject: '  write the parser  ' }, true],
    ['create_task', { subject: '   ' }, false],
    ['edit_task', { taskId: 1, expectedRevision: 1, subject: '  renamed  ' }, true],
    ['edit_task', { taskId: 1, expectedRevision: 1 }, false],
    ['wait_agent', {}, true],
  ];
  for (const [name, args, accepted] of cases) {
    expect({ name, args, accepted: toolNamed(name).input.safeParse(args).success }).toEqual({ name, args, accepted });
    agrees(name, args);
  }
  expect(toolNamed('create_task').input.parse({ subject: '  write the parser  ' })).toEqual({
    subject: 'write the parser',
    description: '',
    dependencies: [],
    writeScopes: [],
  });
});

test("the runtime's own fields are not the model's: caller on every tool, messageId on send_message, afterSeq on wait_agent", () => {
  for (const tool of TEAM_TOOLS)
    expect({ tool: tool.name, accepted: tool.input.safeParse({ caller: 'lead' }).success }).toEqual({ tool: tool.name, accepted: false });
  expect(toolNamed('send_message').input.safeParse({ to: 'lead', content: 'hi', messageId: 'm-1' }).success).toBe(false);
  // A client's watch may resume after the last edge it saw; a model's wait never replays an earlier edge.
  expect(toolNamed('wait_agent').input.safeParse({ afterSeq: 0 }).success).toBe(false);
});
