/**
 * The workflow interceptors stand in for OpenTelemetry's without loading them (workflows/interceptors.ts), by the method
 * names in TRACED_METHODS; and the worker tells its workflows whether it traces by one statement ahead of the bundle.
 */
import * as vm from 'node:vm';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { TRACED_METHODS, WORKER_TRACES_GLOBAL } from '../../shared/telemetry/tracing';
import { bundleForWorker } from '../../worker/workflowBundle';

const methodsOf = (prototype: object): string[] => Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor');

test('the gates name exactly the methods of the OpenTelemetry workflow interceptors', () => {
  expect([...TRACED_METHODS.inbound].sort()).toEqual(methodsOf(OpenTelemetryInboundInterceptor.prototype).sort());
  expect([...TRACED_METHODS.outbound].sort()).toEqual(methodsOf(OpenTelemetryOutboundInterceptor.prototype).sort());
  expect([...TRACED_METHODS.internals].sort()).toEqual(methodsOf(OpenTelemetryInternalsInterceptor.prototype).sort());
});

test.each([true, false])('the bundle as a worker runs it tells its workflows whether it traces (%s), and keeps every line where it was', (tracing) => {
  const code = 'var __TEMPORAL__;\nglobalThis.lines = 2;\n//# sourceMappingURL=data:application/json;base64,e30=';
  const context = vm.createContext({});
  const prefixed = bundleForWorker(code, tracing);
  vm.runInContext(prefixed, context);
  expect((context as Record<string, unknown>)[WORKER_TRACES_GLOBAL]).toBe(tracing);
  expect(prefixed.split('\n').slice(1)).toEqual(code.split('\n').slice(1));
});
