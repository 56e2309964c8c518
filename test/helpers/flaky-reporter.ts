// Integration and end-to-end tests run real processes on a shared, loaded machine, and a failure
// there is tried once more (vitest.config.ts). A test that passed only on its second try is named
// at the end of the run, never hidden: each one is a race to find and fix, and a test that fails
// twice fails the run. The first try's error is printed under its name (its first line, control
// characters dropped): a race that passed on a retry is otherwise seen only as a name.

import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

export class FlakyReport implements Reporter {
  private readonly flaky: string[] = [];

  onTestCaseResult(test: TestCase): void {
    const diagnostic = test.diagnostic();
    if (!diagnostic?.flaky) return;
    const file = relative(test.project.config.root, test.module.moduleId);
    const [error] = (test.result() as { errors?: readonly { message?: string }[] }).errors ?? [];
    const why = firstLine(error?.message);
    this.flaky.push(
      `  ${file} > ${test.fullName} (passed on try ${diagnostic.retryCount + 1})${why ? `\n    first try: ${why}` : ''}`,
    );
  }

  onTestRunEnd(): void {
    if (this.flaky.length === 0) return;
    const count = this.flaky.length;
    process.stdout.write(
      `\nflaky: ${count} test${count === 1 ? '' : 's'} passed only when tried again:\n${this.flaky.join('\n')}\n`,
    );
  }
}

/** A message's first line, without control characters, at most 300 characters. */
function firstLine(message: string | undefined): string {
  const line = (message ?? '').split('\n')[0]?.replace(/[\u0000-\u001f\u007f-\u009f]/g, '') ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
