/**
 * A model is named `provider:model` (`anthropic:claude-sonnet-4-5`, `openai:gpt-5.1`,
 * `ollama:qwen3:8b`): the provider says which API and which settings the worker uses, the rest is
 * the provider's own model id. A name without a known provider prefix is the deployment's
 * OpenAI-compatible endpoint's (MODEL_BASE_URL), or the scripted model's, as before.
 */
import { z } from 'zod';
import { MAX_MODEL_NAME_LENGTH, modelNameSchema } from './vocabulary';

export const MODEL_PROVIDERS = ['openai', 'openai-chat', 'anthropic', 'google', 'deepseek', 'ollama', 'lmstudio', 'vllm', 'compatible', 'scripted'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface ModelName {
  provider: ModelProviderName;
  model: string;
}

const isProvider = (name: string): name is ModelProviderName => (MODEL_PROVIDERS as readonly string[]).includes(name);

/** The provider and model of a `provider:model` name; null when the name has no known provider prefix or no model after it. */
export function parseModelName(name: string): ModelName | null {
  const colon = name.indexOf(':');
  if (colon <= 0) return null;
  const provider = name.slice(0, colon);
  const model = name.slice(colon + 1);
  return isProvider(provider) && model.trim() !== '' ? { provider, model } : null;
}

/** The most models a deployment may list for its Teams (a Team's start input carries the list). */
export const MAX_TEAM_MODELS = 32;

/**
 * The models a Team may use, and the one a member gets when it names none. A deployment lists
 * them (AGENT_TEAMS_MODELS, docs/agent-runtime.md); the Team's start input records the list, so
 * every later run and replay decides from the same data, never from a worker's environment.
 */
export const teamModelsSchema = z
  .strictObject({
    allowed: z.array(modelNameSchema).min(1).max(MAX_TEAM_MODELS),
    default: modelNameSchema,
  })
  .refine((models) => models.allowed.includes(models.default), { message: 'the default model must be one of the allowed models', path: ['default'] });
export type TeamModels = z.output<typeof teamModelsSchema>;

/** The failure type of a model name outside the Team's list (a start, a spawn, a subagent, or a worker's own list). */
export const MODEL_NOT_ALLOWED = 'ModelNotAllowed';

/**
 * Why `requested` may not be used under `models`, as a sentence naming the allowed ones; null when
 * it may (no list, no name: the default, or a listed name).
 */
export function modelNotAllowed(models: TeamModels | undefined, requested: string | null | undefined, list = "this Team's list"): string | null {
  if (models === undefined || requested === null || requested === undefined || models.allowed.includes(requested)) return null;
  const shown = JSON.stringify(requested.slice(0, 80));
  const allowed = models.allowed.map((m) => JSON.stringify(m)).join(', ');
  return `model ${shown} is not on ${list}; use one of ${allowed}, or name none for the default ${JSON.stringify(models.default)}`;
}

/** The model a member runs: the one it asked for, else the inherited one, else the Team's default (null: the worker's own default). */
export function resolveModel(models: TeamModels | undefined, ...choices: (string | null | undefined)[]): string | null {
  for (const choice of choices) if (choice !== null && choice !== undefined) return choice;
  return models?.default ?? null;
}

/**
 * A deployment's list as people write it: names separated by commas or white space, the first
 * the default (`AGENT_TEAMS_MODELS="anthropic:claude-sonnet-4-5, openai:gpt-5.1"`). Empty: no list.
 * Throws a message naming what to fix when a name is malformed or the list too long.
 */
export function parseModelList(text: string | undefined): TeamModels | undefined {
  const names = [...new Set((text ?? '').split(/[\s,]+/).filter((name) => name !== ''))];
  if (names.length === 0) return undefined;
  const parsed = teamModelsSchema.safeParse({ allowed: names, default: names[0] });
  if (!parsed.success) {
    throw new Error(
      `AGENT_TEAMS_MODELS is not a usable list (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); ` +
        `write up to ${MAX_TEAM_MODELS} names of at most ${MAX_MODEL_NAME_LENGTH} characters, separated by commas, the default first`,
    );
  }
  return parsed.data;
}
