// What the exec wrapper tells Herdr about its job pane: `working` once the command runs, then idle
// (success) or blocked (failure) with the `dogsled` token (`exit 3`, `timeout`...), then it closes
// the job's tab, or its pane when the tab cannot be closed. Only inside Herdr and only for the pane
// the record names (or the wrapper's own pane while the record names none yet). Herdr trouble is
// one stderr line at the end (or once, when Herdr cannot be reached) and never changes the job's
// record or exit status.

import { messageOf } from '../../core/common/errors.js';
import { endToken, JOB_AGENT, sidebarState } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { squeezedLine } from '../../core/text/clean.js';
import type { ProcessIO } from '../../state/io.js';
import { ownPane } from '../../terminal/herdr/herdr-env.js';
import type { TerminalPort } from '../../terminal/port.js';
import { tmuxCallerPane } from '../../terminal/tmux/tmux-env.js';

/** Each Herdr call of the wrapper gets this long: the job has ended, nothing should wait for long. */
export const EXEC_HERDR_TIMEOUT_MS = 10_000;

/**
 * The Herdr pane to report on: this process's own pane when Herdr started it and the record's
 * pane is that pane or not set yet (`run` records the pane after Herdr opened it). Else undefined:
 * headless, or a wrapper started by hand in some other pane.
 */
export function jobPaneOf(env: NodeJS.ProcessEnv, record: Pick<JobRecord, 'pane'>): string | undefined {
  // A tmux pane reports the same way (the tmux backend keeps the state in pane options).
  const pane = ownPane(env) ?? tmuxCallerPane(env);
  if (pane === null) return undefined;
  if (record.pane !== null && record.pane !== pane) return undefined;
  return pane;
}

export class PaneReporter {
  private port: Promise<TerminalPort | undefined> | undefined;
  /** What went wrong, told as one line when the job ends (or when Herdr cannot be reached at all). */
  private readonly failures: string[] = [];

  constructor(
    private readonly io: Pick<ProcessIO, 'env' | 'home' | 'warn'>,
    private readonly paneId: string,
    private readonly jobId: string,
    /** Loaded on use: a headless job never needs the terminal code. */
    private readonly open: () => Promise<TerminalPort> = async () =>
      (await import('../../terminal/open.js')).openTerminal({
        env: io.env,
        home: io.home,
        commandName: 'exec',
        timeoutMs: EXEC_HERDR_TIMEOUT_MS,
        warn: io.warn,
      }),
  ) {}

  /** The sidebar shows the pane as a working job. */
  async working(): Promise<void> {
    const port = await this.terminal();
    if (port === undefined) return;
    try {
      await port.reportAgent(this.paneId, {
        source: JOB_AGENT.source,
        agent: JOB_AGENT.agent,
        state: 'working',
      });
    } catch (error) {
      this.failures.push(`report working: ${squeezedLine(messageOf(error))}`);
    }
  }

  /** Idle or blocked with the end token, then the tab (else the pane) closes. */
  async finish(record: JobRecord): Promise<void> {
    const port = await this.terminal();
    if (port === undefined) return;
    const state = sidebarState(record);
    const reported = await failureOf(() =>
      port.reportAgent(this.paneId, { source: JOB_AGENT.source, agent: JOB_AGENT.agent, state }),
    );
    const token = await failureOf(() =>
      port.reportPaneMetadata(this.paneId, {
        source: JOB_AGENT.source,
        tokens: { [JOB_AGENT.token]: endToken(record) },
      }),
    );
    const tabClose = await failureOf(async () => {
      const tab = record.tab ?? (await port.getPane(this.paneId)).tab_id;
      await port.closeTab(tab);
    });
    // Closing the pane alone is the fallback; when it works, the failed tab close is not news.
    const paneClose = tabClose === undefined ? undefined : await failureOf(() => port.closePane(this.paneId));
    if (reported !== undefined) this.failures.push(`report ${state}: ${reported}`);
    if (token !== undefined) this.failures.push(`set the token: ${token}`);
    if (paneClose !== undefined)
      this.failures.push(`close the tab: ${tabClose}; close the pane: ${paneClose}`);
    this.tell();
  }

  private tell(): void {
    if (this.failures.length === 0) return;
    this.io.warn(`dogsled: exec: job ${this.jobId}: herdr pane ${this.paneId}: ${this.failures.join('; ')}`);
    this.failures.length = 0;
  }

  private terminal(): Promise<TerminalPort | undefined> {
    this.port ??= this.open().then(
      (port) => {
        if (port.kind !== 'headless') return port;
        this.failures.push(`cannot reach Herdr (${squeezedLine(port.why)})`);
        this.tell();
        return undefined;
      },
      (error: unknown) => {
        this.failures.push(`cannot reach Herdr (${squeezedLine(messageOf(error))})`);
        this.tell();
        return undefined;
      },
    );
    return this.port;
  }
}

/** The one-line message of the call's failure, or undefined when it worked. */
async function failureOf(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return squeezedLine(messageOf(error));
  }
}
