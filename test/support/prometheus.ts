/** Reading a worker's Prometheus endpoint (AGENT_TEAMS_METRICS_BIND) in tests. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (`name{label="value",...} number` lines; comments skipped). */
export function parseExposition(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples named `name` whose labels include `labels`. */
export const countOn = (samples: Sample[], name: string, labels: Record<string, string>): number =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

/** The samples a worker's endpoint serves now. */
export async function scrape(port: number): Promise<Sample[]> {
  return parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
}
