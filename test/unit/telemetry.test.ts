/** The worker's telemetry settings and JSON log line (worker/telemetry.ts, worker/jsonLog.ts); the live process is tested in integration/metrics. */
import { formatJsonLogLine } from '../../worker/jsonLog';
import { telemetrySettingsFromEnv } from '../../worker/telemetry';
import { tracingEnabled } from '../../worker/tracing';

describe('telemetry settings', () => {
  test('unset means no metrics, human text logs at INFO', () => {
    expect(telemetrySettingsFromEnv({})).toEqual({ metricsBind: null, logFormat: 'text', logLevel: 'INFO' });
  });

  test('a host:port bind, json and a level in any case are taken', () => {
    expect(telemetrySettingsFromEnv({ AGENT_TEAMS_METRICS_BIND: '0.0.0.0:9464', AGENT_TEAMS_LOG_FORMAT: 'json', AGENT_TEAMS_LOG_LEVEL: 'debug' })).toEqual({
      metricsBind: '0.0.0.0:9464',
      logFormat: 'json',
      logLevel: 'DEBUG',
    });
    expect(telemetrySettingsFromEnv({ AGENT_TEAMS_METRICS_BIND: '[::1]:9464' }).metricsBind).toBe('[::1]:9464');
  });

  test('a malformed value is refused with the variable named and what it accepts', () => {
    expect(() => telemetrySettingsFromEnv({ AGENT_TEAMS_METRICS_BIND: '9464' })).toThrow(
      /AGENT_TEAMS_METRICS_BIND must be host:port \(e\.g\. 0\.0\.0\.0:9464\)/,
    );
    expect(() => telemetrySettingsFromEnv({ AGENT_TEAMS_LOG_FORMAT: 'yaml' })).toThrow(/AGENT_TEAMS_LOG_FORMAT must be json or text/);
    expect(() => telemetrySettingsFromEnv({ AGENT_TEAMS_LOG_LEVEL: 'loud' })).toThrow(/AGENT_TEAMS_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR/);
  });

  test('tracing is on only with an OTLP endpoint, and off again when the SDK or the traces exporter is disabled', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('JSON log line', () => {
  const at = BigInt(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) * 1_000_000n;

  test('time, level and message first, then the metadata', () => {
    const line = formatJsonLogLine({ level: 'INFO', message: 'Worker state changed', timestampNanos: at, meta: { taskQueue: 'q', state: 'RUNNING' } });
    expect(line).toBe('{"time":"2026-01-02T03:04:05.678Z","level":"INFO","message":"Worker state changed","taskQueue":"q","state":"RUNNING"}');
  });

  test('errors, bigints, cycles and shadowing keys still make one valid JSON line', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const line = formatJsonLogLine({
      level: 'ERROR',
      message: 'activity failed',
      timestampNanos: at,
      meta: { error: new Error('boom', { cause: 'disk' }), attempt: 3n, cyclic, message: 'from meta', level: 'meta level' },
    });
    expect(line).not.toContain('\n');
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      level: 'ERROR',
      message: 'activity failed',
      'meta.message': 'from meta',
      'meta.level': 'meta level',
      attempt: '3',
      cyclic: { name: 'loop', self: '[Circular]' },
      error: { name: 'Error', message: 'boom', cause: 'disk', stack: expect.stringContaining('boom') },
    });
  });
});
