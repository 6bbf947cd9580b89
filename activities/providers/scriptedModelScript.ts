/**
 * Builders for the scripted model's script language (see scriptedModel.ts), so tests and the demo
 * write `script(tool('claim_task', {...}), send('lead', 'done'))` instead of raw JSON.
 */
export type ScriptStep =
  { think: number } | { send: { to: string; content: unknown } } | { tool: { name: string; args: Record<string, unknown> } } | { answer: string };

export interface Script {
  script: ScriptStep[];
}

export const script = (...steps: ScriptStep[]): Script => ({ script: steps });
export const think = (ms: number): ScriptStep => ({ think: ms });
export const send = (to: string, content: unknown): ScriptStep => ({ send: { to, content } });
export const tool = (name: string, args: Record<string, unknown> = {}): ScriptStep => ({ tool: { name, args } });
export const answer = (text: string): ScriptStep => ({ answer: text });
/** A script as prompt text (the Lead's prompt is a string; the scripted model parses it back). */
export const scriptText = (...steps: ScriptStep[]): string => JSON.stringify(script(...steps));
