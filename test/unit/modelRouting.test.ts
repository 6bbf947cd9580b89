/**
 * One worker, several providers: `provider:model` names route a call to that provider, configured
 * from its own variables; other names go to the default provider. No socket: the providers are given
 * a fetch that records what would be sent.
 */
import { createModelRouter } from '../../activities/providers/router';
import { ModelCallError, type ModelProvider, type ModelRequest } from '../../shared/contract/model';
import { MODEL_PROVIDERS, parseModelName } from '../../shared/contract/modelNames';

interface Sent {
  url: string;
  body: { model?: string };
  authorization: string | null;
}

function recordingFetch(sent: Sent[]): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const url = input instanceof Request ? input.url : input.toString();
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { model?: string }) : {};
    sent.push({ url, body, authorization: headers.get('authorization') ?? headers.get('x-api-key') });
    // An answer no provider accepts: the routing is what is under test, not the parsing.
    return Promise.resolve(new Response('{}', { status: 400, headers: { 'content-type': 'application/json' } }));
  };
}

const fallbackCalls: ModelRequest[] = [];
const fallback: ModelProvider = {
  complete: (request) => {
    fallbackCalls.push(request);
    return Promise.resolve({ message: { content: 'from the default provider', toolCalls: [] }, finishReason: 'stop' });
  },
};
const request = (model: string): ModelRequest => ({ model, messages: [{ role: 'user', content: 'hi' }], tools: [] });

beforeEach(() => {
  fallbackCalls.length = 0;
});

describe('parseModelName', () => {
  test('a known provider, a colon and a model id; the model id may hold colons (Ollama tags)', () => {
    expect(parseModelName('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelName('ollama:qwen3:8b')).toEqual({ provider: 'ollama', model: 'qwen3:8b' });
    for (const provider of MODEL_PROVIDERS) expect(parseModelName(`${provider}:m`)).toEqual({ provider, model: 'm' });
  });

  test('no prefix, an unknown one, an empty model or an inherited property name: not a provider:model name', () => {
    for (const name of ['gpt-4o-mini', 'qwen3:8b', 'anthropic:', 'anthropic: ', ':m', '', 'constructor:m', '__proto__:m', 'toString:x']) {
      expect(parseModelName(name)).toBeNull();
    }
  });
});

describe('createModelRouter', () => {
  test('provider:model goes to that provider with the bare model id; its key from its own variable', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({ ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: 'http://anthropic.test/v1' }, fallback, recordingFetch(sent));
    await expect(router.complete(request('anthropic:claude-x'))).rejects.toMatchObject({ kind: 'bad_request' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: 'http://anthropic.test/v1/messages', body: { model: 'claude-x' }, authorization: 'sk-ant' });
    expect(fallbackCalls).toHaveLength(0);
  });

  test('the defaults of a local server: ollama at 127.0.0.1:11434 without a key, the tag kept whole', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({}, fallback, recordingFetch(sent));
    await expect(router.complete(request('ollama:qwen3:8b'))).rejects.toBeInstanceOf(ModelCallError);
    expect(sent[0]).toMatchObject({ url: 'http://127.0.0.1:11434/v1/chat/completions', body: { model: 'qwen3:8b' }, authorization: null });
  });

  test('a name without a provider prefix goes to the default provider, unchanged', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({ OPENAI_API_KEY: 'sk' }, fallback, recordingFetch(sent));
    const reply = await router.complete(request('qwen3:8b'));
    expect(reply.message.content).toBe('from the default provider');
    expect(fallbackCalls.map((call) => call.model)).toEqual(['qwen3:8b']);
    expect(sent).toHaveLength(0);
  });

  test('a request without a model takes MODEL_NAME, routed by its prefix', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({ MODEL_NAME: 'deepseek:deepseek-chat', DEEPSEEK_API_KEY: 'sk-ds' }, fallback, recordingFetch(sent));
    await expect(router.complete(request(''))).rejects.toBeInstanceOf(ModelCallError);
    expect(sent[0]).toMatchObject({ url: 'https://api.deepseek.com/chat/completions', body: { model: 'deepseek-chat' }, authorization: 'Bearer sk-ds' });
  });

  test('a provider without its key: auth, not retryable, naming the variable, and nothing sent', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({}, fallback, recordingFetch(sent));
    const error = await router.complete(request('openai:gpt-5.1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false });
    expect((error as Error).message).toContain('OPENAI_API_KEY');
    expect(sent).toHaveLength(0);
  });

  test('vllm with a base URL carrying credentials: Basic auth, and no credentials in what an error shows', async () => {
    const sent: Sent[] = [];
    const router = createModelRouter({ VLLM_BASE_URL: 'http://user:p4ss@vllm.test/v1' }, fallback, recordingFetch(sent));
    const error = (await router.complete(request('vllm:llama')).catch((e: unknown) => e)) as Error;
    expect(sent[0]).toMatchObject({ url: 'http://vllm.test/v1/chat/completions', authorization: `Basic ${Buffer.from('user:p4ss').toString('base64')}` });
    expect(error.message).toContain('http://vllm.test/v1/chat/completions');
    expect(error.message).not.toContain('p4ss');
  });

  test('scripted:<anything> is the scripted model', async () => {
    const router = createModelRouter({}, fallback, recordingFetch([]));
    const reply = await router.complete(request('scripted:demo'));
    expect(reply.message.content).toContain('handled');
  });
});
