/**
 * Scripts the attacker suites run in bash (Python, since every Debian has it and it fails plainly).
 * A fork bomb in Python rather than a bash loop: bash retries a refused fork for about 15 s.
 */

/** Forks 2,000 children that each live 2 s, counting the forks refused; `marker` tags the processes. */
export function forkBombPython(marker = 'agent-teams-fork-bomb'): string {
  return [
    `import os, time  # ${marker}`,
    'failed = 0',
    'for i in range(2000):',
    '  try:',
    '    if os.fork() == 0:',
    '      time.sleep(2); os._exit(0)',
    '  except OSError:',
    '    failed += 1',
    'print("forks refused:", failed)',
    '',
  ].join('\n');
}

/** Connects to each Unix socket named on the command line: `CONNECTED <path>` or `refused <path> <why>`. */
export const UNIX_SOCKET_PROBE_PYTHON = [
  'import socket, sys',
  'for f in sys.argv[1:]:',
  '  s = socket.socket(socket.AF_UNIX)',
  '  try:',
  "    s.connect(f); print('CONNECTED', f, s.recv(16))",
  "  except OSError as e: print('refused', f, e.strerror)",
  '',
].join('\n');
