import { z } from 'zod';
import { defineTool, renderToolResult, runToolCall, toolSpec } from '../../shared/tools/tool';

const addTask = defineTool({
  name: 'add_task',
  description: 'Adds a task.',
  input: z.strictObject({ subject: z.string().min(1).describe('what to do'), dependencies: z.array(z.number().int()).default([]) }),
  result: z.strictObject({ id: z.number().int(), subject: z.string() }),
  execute(input, context: { nextId: number }) {
    if (input.subject === 'boom') return Promise.reject(Object.assign(new Error('task 3 is at revision 2, not 1'), { type: 'TaskRevisionConflict' }));
    return Promise.resolve({ id: context.nextId, subject: input.subject });
  },
});

test('the spec carries the input JSON Schema the model sees', () => {
  expect(toolSpec(addTask)).toEqual({
    name: 'add_task',
    description: 'Adds a task.',
    parameters: {
      type: 'object',
      properties: {
        subject: { type: 'string', minLength: 1, description: 'what to do' },
        dependencies: { type: 'array', items: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, default: [] },
      },
      // A field with a default is optional for the model (the input side of the schema).
      required: ['subject'],
      additionalProperties: false,
    },
  });
});

test('results render as compact JSON after validation', async () => {
  expect(await runToolCall(addTask, '{"subject":"write it"}', { nextId: 7 })).toEqual({ ok: true, text: '{"id":7,"subject":"write it"}' });
  expect(() => renderToolResult(addTask, { id: 1.5, subject: 'x' })).toThrow(/outside its schema/);
});

test('malformed JSON, invalid input and typed failures come back to the model as compact errors', async () => {
  const malformed = await runToolCall(addTask, '{"subject": "unterminated', { nextId: 1 });
  expect(malformed.ok).toBe(false);
  expect(JSON.parse(malformed.text)).toMatchObject({ error: 'InvalidToolArguments', message: expect.stringMatching(/not valid JSON/) });
  const invalid = await runToolCall(addTask, '{"subject":"","extra":1}', { nextId: 1 });
  expect(JSON.parse(invalid.text)).toMatchObject({ error: 'InvalidToolArguments', message: expect.stringMatching(/subject/) });
  const failed = await runToolCall(addTask, '{"subject":"boom"}', { nextId: 1 });
  expect(failed).toEqual({ ok: false, text: '{"error":"TaskRevisionConflict","message":"task 3 is at revision 2, not 1"}' });
  expect(failed.text).not.toMatch(/\n| {2}/);
});

test('the compiler rejects an execute that returns something other than the result schema', () => {
  const wrong = defineTool({
    name: 'wrong',
    description: 'returns the wrong shape',
    input: z.strictObject({}),
    result: z.strictObject({ id: z.number() }),
    // @ts-expect-error execute must return what the result schema promises (tsc fails if this stops being an error)
    execute: () => Promise.resolve({ id: 'not a number' }),
  });
  expect(wrong.name).toBe('wrong');
});

test('a cancellation is not a tool result: it propagates so the turn stops', async () => {
  const { CancelledFailure } = await import('@temporalio/common');
  const cancelled = defineTool({
    name: 'slow',
    description: 'waits',
    input: z.strictObject({}),
    result: z.strictObject({}),
    execute: () => Promise.reject(new CancelledFailure('Cancellation scope cancelled')),
  });
  await expect(runToolCall(cancelled, '{}', {})).rejects.toBeInstanceOf(CancelledFailure);
});
