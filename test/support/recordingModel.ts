/** The scripted model, recording every request it is given (what a real model would have seen). */
import { createScriptedModel } from '../../activities/providers/scriptedModel';
import type { ChatMessage, ModelProvider, ModelRequest } from '../../shared/contract/model';

export interface RecordingModel {
  provider: ModelProvider;
  /** Every request in arrival order (copies). */
  readonly requests: readonly ModelRequest[];
}

export function recordingScriptedModel(): RecordingModel {
  const scripted = createScriptedModel();
  const requests: ModelRequest[] = [];
  return {
    requests,
    provider: {
      complete: (request, options) => {
        requests.push(structuredClone(request));
        return scripted.complete(request, options);
      },
    },
  };
}

/** The system message of a request (the shared policy plus the runtime's identity block). */
export function systemText(request: ModelRequest): string {
  const system = request.messages.find((m: ChatMessage) => m.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}
