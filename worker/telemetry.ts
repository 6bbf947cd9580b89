/**
 * The worker process's telemetry, installed once by worker/main.ts before any connection exists (the SDK's Runtime is
 * process-wide and fixed at its first use; in-process test workers never call this):
 * - AGENT_TEAMS_METRICS_BIND=host:port: the SDK's Prometheus exporter serves /metrics there (unset: no metrics);
 * - AGENT_TEAMS_LOG_FORMAT=json|text (default text): json writes one JSON object per line to stdout, text the SDK's
 *   `<time> [<level>] <message> <meta>` lines to stderr, for the SDK's own logs (its "Activity failed" warnings too),
 *   the Rust core's (forwarded), workflow and activity loggers and the process's console lines alike. Either way
 *   every line is inert (worker/jsonLog.ts): no control character a message or a metadata value carries reaches the
 *   operator's terminal raw, and one entry is one line;
 * - AGENT_TEAMS_LOG_LEVEL=TRACE|DEBUG|INFO|WARN|ERROR (default INFO);
 * - OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (worker/tracing.ts).
 */
import { format } from 'node:util';
import { DefaultLogger, Runtime, type LogEntry, type Logger } from '@temporalio/worker';
import type { LogLevel } from '@temporalio/common';
import { formatJsonLogLine, formatTextLogLine } from './jsonLog';
import { installTracing, type WorkerTracing } from './tracing';

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

export interface TelemetrySettings {
  metricsBind: string | null;
  logFormat: 'json' | 'text';
  logLevel: LogLevel;
}

/** Reads the settings; a malformed value throws an error that names the variable and what it accepts. */
export function telemetrySettingsFromEnv(env: NodeJS.ProcessEnv): TelemetrySettings {
  const metricsBind = env.AGENT_TEAMS_METRICS_BIND?.trim() || null;
  if (metricsBind !== null && !/^(\[[0-9a-fA-F:.]+\]|[^\s:]+):\d{1,5}$/.test(metricsBind)) {
    throw new Error(`AGENT_TEAMS_METRICS_BIND must be host:port (e.g. 0.0.0.0:9464), got ${JSON.stringify(metricsBind)}`);
  }
  const logFormat = env.AGENT_TEAMS_LOG_FORMAT?.trim() || 'text';
  if (logFormat !== 'json' && logFormat !== 'text') throw new Error(`AGENT_TEAMS_LOG_FORMAT must be json or text, got ${JSON.stringify(logFormat)}`);
  const logLevel = (env.AGENT_TEAMS_LOG_LEVEL?.trim().toUpperCase() || 'INFO') as LogLevel;
  if (!LEVELS.includes(logLevel))
    throw new Error(`AGENT_TEAMS_LOG_LEVEL must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(env.AGENT_TEAMS_LOG_LEVEL)}`);
  return { metricsBind, logFormat, logLevel };
}

export interface WorkerTelemetry {
  /** The Runtime's logger: the worker's own lines go through it too. */
  logger: Logger;
  /** Pass to createTeamWorker; null when tracing is off. */
  tracing: WorkerTracing | null;
  /** Flushes what tracing still buffers; call after the worker stopped. */
  shutdown: () => Promise<void>;
}

/**
 * The one sink of a process's log: the SDK's DefaultLogger (its level filtering) writing each entry as one inert
 * line, JSON to stdout or text to stderr (where the SDK's own default writes). `write` replaces the stream (tests).
 * Every Runtime.install in the project takes its logger from here (the worker, `npm start`, record-histories).
 */
export function createWorkerLogger(level: LogLevel, logFormat: 'json' | 'text', write?: (line: string) => void): Logger {
  const formatLine = logFormat === 'json' ? formatJsonLogLine : formatTextLogLine;
  const out = write ?? (logFormat === 'json' ? (line: string) => void process.stdout.write(line) : (line: string) => void process.stderr.write(line));
  return new DefaultLogger(level, (entry: LogEntry) => out(`${formatLine(entry)}\n`));
}

export function installTelemetry(env: NodeJS.ProcessEnv = process.env): WorkerTelemetry {
  const settings = telemetrySettingsFromEnv(env);
  const logger = createWorkerLogger(settings.logLevel, settings.logFormat);
  routeConsoleTo(logger);
  Runtime.install({
    logger,
    telemetryOptions: {
      // The Rust core's logs reach the same logger (core at WARN and up, as the SDK's default; its dependencies at ERROR).
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(settings.metricsBind ? { metrics: { prometheus: { bindAddress: settings.metricsBind } } } : {}),
    },
  });
  const tracing = installTracing(env);
  return { logger, tracing, shutdown: async () => void (await tracing?.shutdown()) };
}

/**
 * Every line the process prints goes through the logger, so it is inert and, in JSON mode, JSON: console output (the
 * bash sandbox check, which may quote a probe's output; libraries) and a crash (whose message may quote anything).
 */
function routeConsoleTo(logger: Logger): void {
  const to =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      logger[level](format(...args));
    };
  console.log = to('info');
  console.info = to('info');
  console.debug = to('debug');
  console.warn = to('warn');
  console.error = to('error');
  // Node would print a crash's stack as plain lines: log it as one entry, then exit as Node does.
  process.on('uncaughtException', (error, origin) => {
    logger.error(`worker crashed: ${error.message}`, { error, origin });
    process.exit(1);
  });
}
