/**
 * URL credentials redacted at every edge where a configured URL reaches people or history
 * (shared/text/redact.ts, issue 21): the redaction itself, the worker's start-up and failure lines, the
 * model description the start-up lines print, provider errors mapped to activity failures (message,
 * stack and causes, as Temporal's failure converter records them), and the "turn failed" note.
 * Scheme-less addresses (`alice:s3cret@temporal.internal:7233`, `dns:///user:pw@host:7233`) in
 * running text and as one configured address, and the CLI's Web UI links built from a
 * TEMPORAL_UI_URL that carries credentials.
 * The same edges against a real local HTTP server: test/host/urlCredentials.test.ts; the real CLI:
 * test/host/cliCredentials.test.ts (TEMPORAL_ADDRESS) and test/integration/cliCredentials.test.ts (TEMPORAL_UI_URL).
 */
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { toActivityFailure } from '../../activities/modelCall';
import { webUiLink, webUiTeamLink } from '../../cli/format';
import { configFromEnv } from '../../activities/providers/openaiCompatible';
import { splitUrlCredentials } from '../../activities/providers/http';
import { providerFromEnv } from '../../activities/providers/select';
import { ModelCallError } from '../../shared/contract/model';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { REDACTED, redactAddress, redactErrorCredentials, redactUrl, redactUrlCredentials, turnFailureText } from '../../shared/text/redact';
import { failureLine, startupLine } from '../../worker/runWorkerProcess';

describe('redactUrlCredentials', () => {
  test.each([
    ['http://user:secret@127.0.0.1:8080/v1', 'http://***@127.0.0.1:8080/v1'],
    ['https://user@host.example/v1', 'https://***@host.example/v1'],
    ['https://:secret@host', 'https://***@host'],
    ['http://u:p@ss@host/path', 'http://***@host/path'], // the userinfo runs to the authority's last @
    ['POST http://user:secret@h:1/v1/chat/completions (model m) returned 500: boom', 'POST http://***@h:1/v1/chat/completions (model m) returned 500: boom'],
    ['"http://a:b@h" and \'grpcs://c:d@e:7233\'', '"http://***@h" and \'grpcs://***@e:7233\''],
    ['https://h/v1?api_key=sk-1&model=x', 'https://h/v1?api_key=***&model=x'],
    ['https://h/v1?KEY=1&token=2&access_token=3&password=4&secret=5#frag', 'https://h/v1?KEY=***&token=***&access_token=***&password=***&secret=***#frag'],
    ['https://h/?client_secret=s&x-amz-signature=sig&github_token=t&q=keep', 'https://h/?client_secret=***&x-amz-signature=***&github_token=***&q=keep'],
    ['see https://h/x?token=abc; retry', 'see https://h/x?token=***; retry'],
    ['HTTP://A:B@H', 'HTTP://***@H'],
  ])('%s', (text, expected) => expect(redactUrlCredentials(text)).toBe(expected));

  test.each([
    'no url here',
    'mail me at someone@example.com',
    'https://registry.npmjs.org/@types/node', // an @ in the path is not userinfo
    'https://h/v1?model=gpt&q=1',
    'localhost:7233',
    'https://h/v1?token=',
  ])('left as it is: %s', (text) => expect(redactUrlCredentials(text)).toBe(text));

  test('idempotent, and the marker is ***', () => {
    const once = redactUrlCredentials('http://u:p@h?token=t');
    expect(redactUrlCredentials(once)).toBe(once);
    expect(REDACTED).toBe('***');
  });
});

describe('redactUrlCredentials: a scheme-less user:password@host in running text', () => {
  test.each([
    ['cannot reach Temporal at alice:s3cret@temporal.internal:7233 (refused)', 'cannot reach Temporal at ***@temporal.internal:7233 (refused)'],
    [
      "Invalid address for Temporal gRPC endpoint: expected URI of the form 'hostname' or 'hostname:port'; got 'alice:s3cret@temporal.internal:7233'",
      "Invalid address for Temporal gRPC endpoint: expected URI of the form 'hostname' or 'hostname:port'; got '***@temporal.internal:7233'",
    ],
    ['target dns:///user:pw@temporal.internal:7233 failed', 'target dns:///***@temporal.internal:7233 failed'],
    ['dns:user:pw@host:7233', '***@host:7233'],
    ['TEMPORAL_ADDRESS=alice:s3cret@temporal.internal:7233 npm run worker', 'TEMPORAL_ADDRESS=***@temporal.internal:7233 npm run worker'],
    ['--address=alice:s3cret@h:7233', '--address=***@h:7233'],
    ['{"address":"alice:s3cret@temporal.internal:7233"}', '{"address":"***@temporal.internal:7233"}'],
    ['(at alice:s3cret@[::1]:7233)', '(at ***@[::1]:7233)'],
    ['alice:p@ss@host:7233, retrying', '***@host:7233, retrying'], // the userinfo runs to the word's last @
    ['alice:pa/ss?x@host', '***@host'],
    [':s3cret@host', '***@host'],
    ['connect alice:s3cret@temporal_frontend:7233: refused', 'connect ***@temporal_frontend:7233: refused'],
    ['at alice:s3cret@host.', 'at ***@host.'],
  ])('%s', (text, expected) => expect(redactUrlCredentials(text)).toBe(expected));

  test.each([
    'write to bob@example.com about it',
    'Contact: bob@example.com.',
    'mailto:bob@example.com',
    '<bob@example.com>',
    'git@github.com:org/repo.git',
    'nginx:1.25@sha256:0123456789abcdef0123456789abcdef',
    'user@host:7233', // a user name without a password reads as an e-mail address in prose
    'at 10:30 @home',
    'a:b@ and a:b@-x',
    '/work/node_modules/@temporalio/client/lib/connection.js:230:19',
    'https://registry.npmjs.org/@types/node',
  ])('left as it is: %s', (text) => expect(redactUrlCredentials(text)).toBe(text));

  test('idempotent', () => {
    const once = redactUrlCredentials('alice:s3cret@h:7233 and dns:///u:p@h:1');
    expect(once).toBe('***@h:7233 and dns:///***@h:1');
    expect(redactUrlCredentials(once)).toBe(once);
  });
});

describe('redactAddress: one configured Temporal address', () => {
  test.each([
    ['alice:s3cret@temporal.internal:7233', '***@temporal.internal:7233'],
    ['dns:///user:pw@temporal.internal:7233', 'dns:///***@temporal.internal:7233'],
    ['dns:user:pw@temporal.internal:7233', 'dns:***@temporal.internal:7233'],
    ['user@temporal.internal:7233', '***@temporal.internal:7233'], // configured: the user name goes too
    ['alice:pa?ss#w/rd@h:7233', '***@h:7233'], // whatever the password's characters
    ['alice:p@ss@h:7233', '***@h:7233'],
    ['http://admin:hunter2@temporal.internal:7233?token=t', 'http://***@temporal.internal:7233?token=***'],
    ['https://h:7233/?api_key=k', 'https://h:7233/?api_key=***'],
  ])('%s', (address, expected) => expect(redactAddress(address)).toBe(expected));

  test.each(['localhost:7233', 'temporal.internal:7233', '[::1]:7233', 'dns:///temporal.internal:7233', 'my-ns.a1b2c.tmprl.cloud:7233'])(
    'left as it is: %s',
    (address) => expect(redactAddress(address)).toBe(address),
  );
});

describe('edge: the Web UI links the CLI, the panel and npm start print', () => {
  test('a TEMPORAL_UI_URL with user:password@ and a secret query parameter: host, path, namespace, workflow id and other parameters kept', () => {
    const env = { TEMPORAL_UI_URL: 'https://ops:ui-s3cret@temporal-ui.internal:8080/base/?token=ui-tok3n&theme=dark' };
    const link = webUiLink('temporal.internal:7233', 'team-ns', 'team/1', env);
    expect(link).toBe('https://***@temporal-ui.internal:8080/base/namespaces/team-ns/workflows/team%2F1?token=***&theme=dark');
    const team = webUiTeamLink('temporal.internal:7233', 'team-ns', 'team-1', env);
    expect(team).toBe(
      `https://***@temporal-ui.internal:8080/base/namespaces/team-ns/workflows?query=${encodeURIComponent('AgentTeamId = "team-1"')}&token=***&theme=dark`,
    );
    for (const text of [link, team]) expect(text).not.toMatch(/ui-s3cret|ui-tok3n|ops/);
  });

  test.each(['https://ops:pa/ss@ui.example', 'https://ops:pa?ss@ui.example/', 'https://ops:p@ss@ui.example/', 'https://ui.example/?access_token=ui-tok3n'])(
    'a TEMPORAL_UI_URL that does not parse as it means, %s: no credential in the link',
    (url) => {
      const link = webUiLink('h:7233', 'default', 't', { TEMPORAL_UI_URL: url })!;
      expect(link).toContain('ui.example');
      expect(link).toContain('/namespaces/default/workflows/t');
      expect(link).not.toMatch(/ops|pa\/ss|pa\?ss|p@ss|ui-tok3n/);
    },
  );

  test('a TEMPORAL_UI_URL without credentials is linked as before', () => {
    expect(webUiLink('h:7233', 'default', 't', { TEMPORAL_UI_URL: 'https://ui.example/' })).toBe('https://ui.example/namespaces/default/workflows/t');
    expect(webUiLink('h:7233', 'default', 't', { TEMPORAL_UI_URL: 'https://ui.example/?theme=dark' })).toBe(
      'https://ui.example/namespaces/default/workflows/t?theme=dark',
    );
  });
});

describe('redactUrl', () => {
  test('one configured URL: userinfo and secret query values, even when the URL does not parse', () => {
    expect(redactUrl('http://user:secret@model.internal/v1')).toBe('http://***@model.internal/v1');
    expect(redactUrl('http://user:pa/ss@host/v1')).toBe('http://***@host/v1');
    expect(redactUrl('https://api.openai.com/v1')).toBe('https://api.openai.com/v1');
    expect(redactUrl('https://h/v1?api_key=k')).toBe('https://h/v1?api_key=***');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});

describe('redactErrorCredentials', () => {
  test('message and stack of the whole cause chain, in place (class and fields kept)', () => {
    const inner = new TypeError('Request cannot be constructed from a URL that includes credentials: http://u:secret@h/v1');
    const outer = new ModelCallError('could not reach http://u:secret@h/v1', { kind: 'server_error', retryable: true, cause: inner });
    const same = redactErrorCredentials(outer);
    expect(same).toBe(outer);
    expect(same).toBeInstanceOf(ModelCallError);
    expect(same.kind).toBe('server_error');
    for (const error of [outer, inner]) {
      expect(error.message).not.toContain('secret');
      expect(error.stack).not.toContain('secret');
      expect(error.message).toContain('http://***@h/v1');
    }
    expect(redactErrorCredentials('a string')).toBe('a string');
  });

  test('a cycle in the cause chain ends', () => {
    const a = new Error('http://u:p@h');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(redactErrorCredentials(a).message).toBe('http://***@h');
  });
});

describe('edge: the start-up log', () => {
  test('the model description the start-up lines print (worker/main.ts, npm start) has no URL credentials and no API key', () => {
    const { description } = providerFromEnv({ MODEL_BASE_URL: 'http://user:secret@127.0.0.1:8080/v1', MODEL_API_KEY: 'sk-key', MODEL_NAME: 'm' });
    expect(description).toContain('http://***@127.0.0.1:8080/v1');
    expect(description).not.toContain('secret');
    expect(description).not.toContain('sk-key');
  });

  test("the worker's start-up and failure lines", () => {
    const line = startupLine('worker', 'polling task queue "q" (namespace default)', 'OpenAI-compatible model at http://user:secret@h/v1');
    expect(line).toBe('worker polling task queue "q" (namespace default); model: OpenAI-compatible model at http://***@h/v1');
    expect(startupLine('worker', 'polling task queue "q" (namespace default)')).toBe('worker polling task queue "q" (namespace default)');
    const failed = failureLine('worker', new Error('cannot connect to https://admin:hunter2@temporal.internal:7233'));
    expect(failed).toBe('worker failed: cannot connect to https://***@temporal.internal:7233');
  });

  test("the worker's failure line when TEMPORAL_ADDRESS is a scheme-less alice:s3cret@host:7233 (the SDK's error quotes it)", () => {
    const error = new TypeError(
      "Invalid address for Temporal gRPC endpoint: expected URI of the form 'hostname' or 'hostname:port'; got 'alice:s3cret@temporal.internal:7233'",
    );
    const failed = failureLine('worker', error);
    expect(failed).toContain("got '***@temporal.internal:7233'");
    expect(failed).not.toContain('s3cret');
    expect(failureLine('checkout worker', new Error('dns:///user:pw@temporal.internal:7233 unreachable'))).toBe(
      'checkout worker failed: dns:///***@temporal.internal:7233 unreachable',
    );
  });

  test('a MODEL_BASE_URL that does not parse: the config error quotes it without its password', () => {
    expect(() => configFromEnv({ MODEL_BASE_URL: 'http://user:pa/ss@host:x/v1' })).toThrow(/MODEL_BASE_URL is not a valid URL/);
    try {
      configFromEnv({ MODEL_BASE_URL: 'http://user:pa/ss@host:x/v1' });
    } catch (error) {
      expect((error as Error).message).not.toMatch(/pa\/ss|user/);
    }
  });
});

describe('edge: provider errors that become activity failures in history', () => {
  test('splitUrlCredentials: userinfo as Basic credentials, the URL without it', () => {
    expect(splitUrlCredentials('http://user:p%40ss@127.0.0.1:1/v1/chat/completions')).toEqual({
      url: 'http://127.0.0.1:1/v1/chat/completions',
      basic: Buffer.from('user:p@ss').toString('base64'),
    });
    expect(splitUrlCredentials('http://127.0.0.1:1/v1')).toEqual({ url: 'http://127.0.0.1:1/v1', basic: null });
    expect(splitUrlCredentials('::not a url')).toEqual({ url: '::not a url', basic: null });
  });

  test('toActivityFailure: no credential in the failure Temporal records (message, stack, every cause)', () => {
    const cause = new TypeError('fetch failed for http://user:secret@h/v1/chat/completions?api_key=sk-q');
    const error = new ModelCallError('could not reach the model server at http://user:secret@h/v1/chat/completions?api_key=sk-q', {
      kind: 'server_error',
      retryable: true,
      cause,
    });
    const failure = toActivityFailure(error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const recorded = JSON.stringify(new DefaultFailureConverter().errorToFailure(failure, defaultPayloadConverter));
    expect(recorded).toContain('http://***@h/v1/chat/completions?api_key=***');
    expect(recorded).not.toContain('secret');
    expect(recorded).not.toContain('sk-q');
    // Other errors too (a provider of another kind), and non-Error values.
    const plain = toActivityFailure(new Error('GET https://u:secret@h failed')) as Error;
    expect(plain.message).toBe('GET https://***@h failed');
    expect((toActivityFailure('https://u:secret@h') as Error).message).not.toContain('secret');
  });
});

describe('edge: the "turn failed" note', () => {
  test('redacted, then cut to the status length (never cut first: a cut URL would hide its @)', () => {
    expect(turnFailureText('model server error: POST http://user:secret@h/v1 returned 500', MAX_STATUS_TEXT_LENGTH)).toBe(
      'model server error: POST http://***@h/v1 returned 500',
    );
    const long = `${'x'.repeat(MAX_STATUS_TEXT_LENGTH - 20)} http://user:${'s'.repeat(40)}@h/v1`;
    const text = turnFailureText(long, MAX_STATUS_TEXT_LENGTH);
    expect(text.length).toBeLessThanOrEqual(MAX_STATUS_TEXT_LENGTH);
    expect(text).not.toContain('sss');
  });
});
