/**
 * The worker's failure converter (worker/failureConverter.ts). The SDK writes a completion with
 * protobufjs, whose writer encodes a string under 40 UTF-16 units by hand and writes a lone
 * surrogate as three bytes that are not UTF-8 (ED A0 80 for U+D800); core decodes the completion
 * strictly and refuses it, which shuts the whole worker down. These tests encode failures exactly
 * that way and read the bytes back as strict UTF-8.
 */
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter, type ProtoFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Reader } from 'protobufjs';
import { z } from 'zod';
import { failureConverter, wellFormedText } from '../../worker/failureConverter';
import { answerFailure, invalidInputFailure, rejectionFailure, rollingOverFailure } from '../../shared/contract/failures';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw bytes of field 1 (message) of an encoded Failure, decoded as strict UTF-8. */
function encodedMessage(failure: ProtoFailure): string {
  const reader = Reader.create(temporal.api.failure.v1.Failure.encode(failure).finish());
  for (;;) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1) return strictUtf8.decode(reader.bytes());
    reader.skipType(tag & 7);
  }
}

/** Every string in a failure tree, with its path. */
function strings(node: unknown, at = '$'): [string, string][] {
  if (typeof node === 'string') return [[at, node]];
  if (typeof node !== 'object' || node === null || node instanceof Uint8Array) return [];
  return Object.entries(node).flatMap(([key, value]) => strings(value, `${at}.${key}`));
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

test('wellFormedText replaces each lone surrogate and keeps pairs, astral text and the rest', () => {
  expect(wellFormedText('a\ud800b')).toBe('a\ufffdb');
  expect(wellFormedText('\udc00')).toBe('\ufffd');
  expect(wellFormedText('a\udfff\ud800b')).toBe('a\ufffd\ufffdb');
  expect(wellFormedText('\ud800\ud800\udc00')).toBe('\ufffd\ud800\udc00');
  expect(wellFormedText('😀 kept, ünïcode kept')).toBe('😀 kept, ünïcode kept');
  expect(wellFormedText('😀'.slice(0, 1) + 'x')).toBe('\ufffdx');
});

test("the SDK's default encoding of a short message with a lone surrogate is not UTF-8: the attack this converter stops", () => {
  const failure = new DefaultFailureConverter().errorToFailure(ApplicationFailure.create({ message: 'bad \ud800' }), defaultPayloadConverter);
  expect(() => encodedMessage(failure)).toThrow(/not valid/);
});

test('every string of a converted failure is well-formed, down every cause, and encodes as UTF-8', () => {
  const cause = new Error('inner \udc00');
  const error = ApplicationFailure.create({
    type: 'Hostile\ud800',
    message: 'outer \ud800',
    details: [{ echoed: 'x\ud800' }],
    cause,
    nonRetryable: true,
  });
  const failure = failureConverter.errorToFailure(error, defaultPayloadConverter);
  const all = strings(failure);
  expect(all.filter(([, text]) => LONE.test(text))).toEqual([]);
  expect(failure.message).toBe('outer \ufffd');
  expect(failure.applicationFailureInfo?.type).toBe('Hostile\ufffd');
  expect(failure.cause?.message).toBe('inner \ufffd');
  expect(encodedMessage(failure)).toBe('outer \ufffd');
  expect(encodedMessage(failure.cause!)).toBe('inner \ufffd');
  // Details are JSON bytes (the lone surrogate is escaped there) and reach the caller unchanged.
  const details = failure.applicationFailureInfo?.details?.payloads ?? [];
  expect(details.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([{ echoed: 'x\ud800' }]);
  // The round trip back to an error keeps the cleaned text.
  const back = failureConverter.failureToError(failure, defaultPayloadConverter);
  expect(back).toBeInstanceOf(ApplicationFailure);
  expect(back.message).toBe('outer \ufffd');
});

test('a well-formed failure passes through unchanged', () => {
  const error = ApplicationFailure.create({ type: 'TaskNotFound', message: 'task 7 does not exist 😀', details: [{ id: 7 }], nonRetryable: true });
  const ours = failureConverter.errorToFailure(error, defaultPayloadConverter);
  const theirs = new DefaultFailureConverter().errorToFailure(error, defaultPayloadConverter);
  expect(ours).toEqual(theirs);
});

describe('a typed answer carries no stack frames', () => {
  const rejection = { type: 'TaskRevisionConflict', message: 'task 1 is at revision 2, not 1: read it again and retry', taskId: 1 } as const;

  test('through the worker converter and back: type, message and details kept; the stack is the one line', () => {
    const proto = failureConverter.errorToFailure(rejectionFailure(rejection), defaultPayloadConverter);
    expect(proto.stackTrace).toBe(`ApplicationFailure: ${rejection.message}`);
    const back = failureConverter.failureToError(proto, defaultPayloadConverter) as ApplicationFailure;
    expect(back).toBeInstanceOf(ApplicationFailure);
    expect(back.type).toBe('TaskRevisionConflict');
    expect(back.message).toBe(rejection.message);
    expect(back.nonRetryable).toBe(true);
    expect(back.details).toEqual([rejection]);
  });

  test('every typed answer of the contract, and answerFailure itself; a bug report keeps its frames', () => {
    const zodError = z.strictObject({ n: z.number() }).safeParse({ n: 'x' }).error!;
    for (const failure of [
      rejectionFailure(rejection),
      invalidInputFailure('claimTask', zodError),
      rollingOverFailure(),
      answerFailure({ type: 'MemberUnavailable', message: 'teammate "a\ud800" is gone', nonRetryable: true }),
    ]) {
      const proto = failureConverter.errorToFailure(failure, defaultPayloadConverter);
      expect(proto.stackTrace).not.toMatch(/\n\s*at /);
      expect(proto.stackTrace).toBe(wellFormedText(`ApplicationFailure: ${failure.message}`));
    }
    const bug = ApplicationFailure.create({ type: 'TeamInternalError', message: 'a bug', nonRetryable: true });
    expect(failureConverter.errorToFailure(bug, defaultPayloadConverter).stackTrace).toMatch(/\n\s*at /);
  });
});
