/**
 * A model is named `provider:model` (`anthropic:claude-sonnet-4-5`, `openai:gpt-5.1`,
 * `ollama:qwen3:8b`): the provider says which API and which settings the worker uses, the rest is
 * the provider's own model id. A name without a known provider prefix is the deployment's
 * OpenAI-compatible endpoint's (MODEL_BASE_URL), or the scripted model's, as before.
 */
import { z } from 'zod';
import { MAX_MODEL_NAME_LENGTH, modelNameSchema } from './vocabulary';
import { MAX_PRICE_PER_MILLION, modelPriceSchema, priceTableSchema, type ModelPrice, type PriceTable } from './usage';

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
    /** The price table (shared/contract/usage.ts): usage is shown with its cost for the models it prices. */
    prices: priceTableSchema.optional(),
  })
  .refine((models) => models.allowed.includes(models.default), { message: 'the default model must be one of the allowed models', path: ['default'] })
  .refine((models) => Object.keys(models.prices ?? {}).every((name) => models.allowed.includes(name)), {
    message: 'every priced model must be one of the allowed models',
    path: ['prices'],
  });
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

/**
 * A deployment's prices as people write them: `name=input/output[/cacheRead[/cacheWrite]]` in US
 * dollars per million tokens, separated by commas or white space
 * (`AGENT_TEAMS_PRICES="anthropic:claude-sonnet-4-5=3/15/0.3/3.75"`). Empty: no prices. Throws a
 * message naming what to fix when an entry is malformed.
 */
export function parsePriceTable(text: string | undefined): PriceTable | undefined {
  const entries = (text ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  const table: PriceTable = {};
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    const name = entry.slice(0, at);
    const figures = entry.slice(at + 1).split('/');
    const price =
      at > 0 && figures.length >= 2 && figures.length <= 4
        ? modelPriceSchema.safeParse(priceOf(figures.map((f) => (f.trim() === '' ? NaN : Number(f)))))
        : null;
    if (!price?.success || name.length > MAX_MODEL_NAME_LENGTH) {
      throw new Error(
        `AGENT_TEAMS_PRICES entry ${JSON.stringify(entry.slice(0, 80))} is not a price; write name=input/output[/cacheRead[/cacheWrite]], ` +
          `each in US dollars per million tokens from 0 to ${MAX_PRICE_PER_MILLION}`,
      );
    }
    Object.defineProperty(table, name, { value: price.data, enumerable: true, writable: true, configurable: true });
  }
  return table;
}

function priceOf([input, output, cacheRead, cacheWrite]: number[]): ModelPrice {
  return { input: input ?? NaN, output: output ?? NaN, ...(cacheRead !== undefined ? { cacheRead } : {}), ...(cacheWrite !== undefined ? { cacheWrite } : {}) };
}

/** The deployment's list with its prices (AGENT_TEAMS_MODELS and AGENT_TEAMS_PRICES), as a Team records them; throws what to fix. */
export function parseDeploymentModels(modelsText: string | undefined, pricesText: string | undefined): TeamModels | undefined {
  const models = parseModelList(modelsText);
  const prices = parsePriceTable(pricesText);
  if (prices === undefined) return models;
  if (models === undefined) throw new Error('AGENT_TEAMS_PRICES prices the models of AGENT_TEAMS_MODELS: set that list too, or unset the prices');
  const unlisted = Object.keys(prices).filter((name) => !models.allowed.includes(name));
  if (unlisted.length > 0) {
    throw new Error(
      `AGENT_TEAMS_PRICES names ${unlisted.map((n) => JSON.stringify(n.slice(0, 80))).join(', ')}, not on AGENT_TEAMS_MODELS; price only listed models`,
    );
  }
  return { ...models, prices };
}
