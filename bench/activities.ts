/** The benchmark's own activity, registered only by the benchmark's worker (bench/run.ts). */
export function createBenchActivities() {
  return {
    /** The unit of the activities baseline (see noopActivitiesBaseline in bench/baselines.ts). */
    benchNoop(): Promise<void> {
      return Promise.resolve();
    },
  };
}

export type BenchActivities = ReturnType<typeof createBenchActivities>;
