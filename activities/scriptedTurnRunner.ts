/**
 * The deterministic SCRIPTED turn runner: a stand-in for a model, used by tests and the demo so
 * no model key is ever needed. A message whose content is `{ "script": [...] }` is followed step
 * by step; any other message is acknowledged without actions.
 *   { "think": 5000 }                          work for 5 s (heartbeating; an interrupt cancels it)
 *   { "send": { "to": "lead", "content": … } } send a message through the Lead
 */
import type { JsonValue } from '../shared/json';
import type { TurnAction, TurnInput, TurnResult, TurnRunner } from '../shared/turn';

interface ScriptStep {
  think?: number;
  send?: { to: string; content: JsonValue };
}

function scriptOf(content: JsonValue): ScriptStep[] {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return [];
  const script = Object.getOwnPropertyDescriptor(content, 'script')?.value as unknown;
  return Array.isArray(script) ? (script.filter((s) => typeof s === 'object' && s !== null) as ScriptStep[]) : [];
}

export const scriptedTurnRunner: TurnRunner = {
  async runTurn(input: TurnInput, ctx): Promise<TurnResult> {
    const actions: TurnAction[] = [];
    for (const message of input.messages) {
      for (const step of scriptOf(message.content)) {
        if (typeof step.think === 'number') {
          let remaining = step.think;
          while (remaining > 0) {
            ctx.heartbeat();
            const slice = Math.min(200, remaining);
            await ctx.sleep(slice);
            remaining -= slice;
          }
        }
        if (step.send) actions.push({ type: 'send_message', to: step.send.to, content: step.send.content });
      }
    }
    return { reply: { handled: input.messages.map((m) => m.messageId) }, actions };
  },
};
