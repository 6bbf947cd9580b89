/**
 * The server settings a Team needs are shipped in every configuration: the dev server script
 * passes scripts/serverSettings.ts itself; the compose deployment's dynamic config must carry the
 * same values.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEAM_SERVER_DYNAMIC_CONFIG } from '../../scripts/serverSettings';

const COMPOSE_DYNAMIC_CONFIG = path.join(__dirname, '..', '..', 'deploy', 'dynamicconfig', 'development-sql.yaml');

test('the compose dynamic config sets every project server setting to the same value', () => {
  const yaml = fs.readFileSync(COMPOSE_DYNAMIC_CONFIG, 'utf8');
  expect(Object.keys(TEAM_SERVER_DYNAMIC_CONFIG)).toContain('history.maxInFlightUpdates');
  for (const [key, value] of Object.entries(TEAM_SERVER_DYNAMIC_CONFIG)) {
    const escaped = key.replace(/\./g, '\\.');
    const match = new RegExp(`^${escaped}:\\n\\s+- value: (\\S+)\\n\\s+constraints: \\{\\}`, 'm').exec(yaml);
    expect(match?.[1]).toBe(String(value));
  }
});

test('room for 64 racing callers: the in-flight Update limit is above the 64 the benchmark races', () => {
  expect(TEAM_SERVER_DYNAMIC_CONFIG['history.maxInFlightUpdates']).toBeGreaterThan(64);
});
