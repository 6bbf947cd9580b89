/**
 * Choosing the model provider from the environment.
 */
import { providerFromEnv, SCRIPTED_MODEL_DESCRIPTION } from '../../activities/providers/select';
import { renderInboxMessage } from '../../shared/agent/transcript';

describe('providerFromEnv', () => {
  test('unset or scripted: the scripted model', async () => {
    for (const env of [{}, { MODEL_PROVIDER: 'scripted' }, { MODEL_PROVIDER: ' Scripted ' }, { MODEL_PROVIDER: '' }]) {
      const selected = providerFromEnv(env);
      expect(selected.description).toBe(SCRIPTED_MODEL_DESCRIPTION);
      const reply = await selected.provider.complete({
        model: '',
        messages: [{ role: 'user', content: renderInboxMessage({ messageId: 'm-1', from: 'lead', content: 'hi' }) }],
        tools: [],
      });
      expect(reply.message.content).toBe('{"handled":["m-1"]}');
    }
  });

  test('openai and openai-compatible: the OpenAI-compatible provider configured from the env (no key in the description)', () => {
    for (const name of ['openai', 'openai-compatible', 'OpenAI']) {
      const selected = providerFromEnv({ MODEL_PROVIDER: name, MODEL_BASE_URL: 'http://127.0.0.1:8080/v1', MODEL_API_KEY: 'sk-secret', MODEL_NAME: 'qwen' });
      expect(selected.description).toContain('OpenAI-compatible');
      expect(selected.description).toContain('http://127.0.0.1:8080/v1');
      expect(selected.description).toContain('qwen');
      expect(selected.description).not.toContain('sk-secret');
      expect(typeof selected.provider.complete).toBe('function');
    }
  });

  test('MODEL_BASE_URL with MODEL_PROVIDER unset selects openai', () => {
    expect(providerFromEnv({ MODEL_BASE_URL: 'https://api.deepseek.com' }).description).toContain('https://api.deepseek.com');
    // An explicit choice wins.
    expect(providerFromEnv({ MODEL_PROVIDER: 'scripted', MODEL_BASE_URL: 'https://api.deepseek.com' }).description).toBe(SCRIPTED_MODEL_DESCRIPTION);
  });

  test('openai without MODEL_BASE_URL: the config error', () => {
    expect(() => providerFromEnv({ MODEL_PROVIDER: 'openai' })).toThrow(/MODEL_BASE_URL is not set/);
  });

  test('an unknown provider names the valid values', () => {
    expect(() => providerFromEnv({ MODEL_PROVIDER: 'anthropic' })).toThrow(/"anthropic".*scripted, openai, openai-compatible/);
  });

  test('provider keys and a provider:model MODEL_NAME show in the description (no key), and route by name', async () => {
    const selected = providerFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-secret', OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1', MODEL_NAME: 'scripted:demo' });
    expect(selected.description).toBe(`${SCRIPTED_MODEL_DESCRIPTION}; by name: anthropic:<model>, ollama:<model>; default model scripted:demo`);
    expect(selected.description).not.toContain('sk-ant-secret');
    const reply = await selected.provider.complete({ model: '', messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(reply.message.content).toContain('handled');
  });
});
