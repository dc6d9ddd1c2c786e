/** Everything the process writes to stdout and stderr while installed (Powertools logs, EMF). */
export interface CapturedOutput {
  readonly text: () => string;
  restore(): void;
}

/** Captures stdout and stderr without echoing them, for tests that read log lines. */
export function captureProcessOutput(): CapturedOutput {
  const written: string[] = [];
  const original = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };
  const capture = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  return {
    text: () => written.join(''),
    restore() {
      process.stdout.write = original.out;
      process.stderr.write = original.err;
    },
  };
}
