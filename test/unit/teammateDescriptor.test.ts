import type { TeammateDescriptor } from '../../shared/contract';
import { descriptorProblem } from '../../shared/session/descriptor';

const expected: TeammateDescriptor = { teamId: 'team-1', name: 'alice', context: 'fork', initialMessageId: 'team-1/teammate/alice/initial' };

describe('descriptorProblem: the memo descriptor recovery reads is untrusted', () => {
  test('a matching descriptor proves nothing is wrong', () => {
    expect(descriptorProblem({ ...expected }, expected)).toBeNull();
  });

  test('missing, malformed and mismatched descriptors each say which', () => {
    expect(descriptorProblem(undefined, expected)).toBe('missing teammate descriptor: the child has no agentTeam memo');
    expect(descriptorProblem(null, expected)).toBe('missing teammate descriptor: the child has no agentTeam memo');
    expect(descriptorProblem([expected], expected)).toBe('corrupt teammate descriptor: the agentTeam memo is an array, not an object');
    expect(descriptorProblem(7, expected)).toBe('corrupt teammate descriptor: the agentTeam memo is a number, not an object');
    expect(descriptorProblem({ ...expected, initialMessageId: 1 }, expected)).toBe('corrupt teammate descriptor: initialMessageId is not a string');
    expect(descriptorProblem({ ...expected, teamId: 'team-2' }, expected)).toBe(
      `mismatched lineage: the child's descriptor belongs to Team "team-2", not this Lead's`,
    );
    expect(descriptorProblem({ ...expected, context: 'fresh' }, expected)).toBe(
      'mismatched provider/lineage: the child was started by the "fresh" provider, the record says fork',
    );
    expect(descriptorProblem({ ...expected, name: 'bob' }, expected)).toBe('mismatched teammate descriptor: the child is named "bob"');
    expect(descriptorProblem({ ...expected, initialMessageId: 'x' }, expected)).toBe('mismatched teammate descriptor: the child\'s initial message is "x"');
  });

  test('fields are read as own properties: an inherited or __proto__ descriptor proves nothing', () => {
    expect(descriptorProblem(Object.create(expected) as unknown, expected)).toBe('corrupt teammate descriptor: teamId is not a string');
    const protoKeyed = JSON.parse(`{"__proto__": ${JSON.stringify(expected)}}`) as unknown;
    expect(descriptorProblem(protoKeyed, expected)).toBe('corrupt teammate descriptor: teamId is not a string');
  });
});
