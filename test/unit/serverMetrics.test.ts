import { countsSince, signalTaskCountsIn } from '../../bench/serverMetrics';

// Lines as the dev server (Temporal CLI v1.5.1, server 1.29.1) prints them, trimmed to the labels that matter.
const SCRAPE = [
  '# HELP task_attempt task_attempt histogram',
  'task_attempt_bucket{operation="TransferActiveTaskSignalExecution",service_name="history",le="1"} 400',
  'task_attempt_sum{operation="TransferActiveTaskSignalExecution",service_name="history"} 989',
  'task_attempt_count{operation="TransferActiveTaskSignalExecution",service_name="history"} 589',
  'task_attempt_count{operation="TransferActiveTaskWorkflowTask",service_name="history"} 363',
  'task_errors_throttled{operation="TransferActiveTaskSignalExecution",resource_exhausted_cause="BusyWorkflow",service_name="history"} 294',
  'task_errors_throttled{operation="TransferActiveTaskWorkflowTask",resource_exhausted_cause="BusyWorkflow",service_name="history"} 5',
  'task_errors_throttled{operation="TransferActiveTaskSignalExecution",resource_exhausted_cause="RpsLimit",service_name="history"} 7',
].join('\n');

describe("the dev server's signal-delivery counters (bench/serverMetrics.ts)", () => {
  it('counts signal deliveries and their busy-workflow tries, and nothing else', () => {
    expect(signalTaskCountsIn(SCRAPE)).toEqual({ delivered: 589, busyWorkflow: 294 });
  });

  it('reads zero where the server has counted nothing yet', () => {
    expect(signalTaskCountsIn('# no samples\n')).toEqual({ delivered: 0, busyWorkflow: 0 });
  });

  it('gives what happened between two readings', () => {
    expect(countsSince({ delivered: 100, busyWorkflow: 4 }, { delivered: 589, busyWorkflow: 294 })).toEqual({ delivered: 489, busyWorkflow: 290 });
  });
});
