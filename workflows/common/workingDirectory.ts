/**
 * A session's working directory as its work tools see it (`runWorkToolCall` sets it after a call):
 * read from the session's state, and a `cd` applied through `move` (the session's apply path).
 */
export function workingDirectory(read: () => string, move: (cwd: string) => void): { cwd: string } {
  return {
    get cwd(): string {
      return read();
    },
    set cwd(cwd: string) {
      move(cwd);
    },
  };
}
