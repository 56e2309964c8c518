// Entry point shared by the fake `claude`, `codex` and `pi` executables: parse the launch like the
// real CLI, record it, open the session and its transcript, run SessionStart, take the launch
// prompt as the first turn, then stay at an idle prompt reading lines from the terminal.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parseLaunch } from './args.mjs';
import { herdrReporter } from './herdr.mjs';
import { loadHooks } from './hooks.mjs';
import { terminalInput } from './input.mjs';
import { launchLog } from './log.mjs';
import { FakeAgent } from './runner.mjs';
import { readFiles, ScriptError, scriptFromFile, scriptIn, taskFilesIn } from './script.mjs';
import { openSession } from './sessions.mjs';
import { openTranscript } from './transcripts.mjs';

const DEFAULT_MODEL = { claude: 'claude-sonnet-4-5-20250929', codex: 'gpt-5-codex', pi: 'claude-sonnet-4-5' };

/**
 * What the agent would read for each system-prompt argument, as the real CLIs take them: Pi's
 * --append-system-prompt is a file when one exists at that path, else text; Claude's is always text,
 * and only --append-system-prompt-file names a file.
 */
function systemPrompts(kind, launch) {
  return launch.systemPromptArgs.map(({ flag, value }) => {
    const isFile =
      flag === '--append-system-prompt-file' || (kind === 'pi' && !value.includes('\n') && existsSync(value));
    let text = value;
    if (isFile) {
      try {
        text = readFileSync(value, 'utf8');
      } catch (error) {
        text = '';
        process.stderr.write(`fake ${kind}: cannot read ${value}: ${error.message}\n`);
      }
    }
    return { arg: value, text, file: isFile };
  });
}

/** Pi inlines @file arguments into the first message, as its file processor does. */
function piFirstMessage(files, message) {
  const parts = files.map((file) => `<file name="${file.path}">\n${file.text}\n</file>\n`);
  return parts.join('') + (message ?? '');
}

function defaultScript(prompt) {
  const line =
    prompt
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return { steps: [{ reply: `OK: ${line.slice(0, 120)}` }], onStopBlock: null, herdrReports: true };
}

/** Script from the prompt or the files it names; the launch prompt may fall back to $FAKE_AGENT_SCRIPT. */
function scriptFor(prompt, files, env, isLaunch) {
  for (const text of [...files.map((file) => file.text), prompt]) {
    const script = scriptIn(text);
    if (script) return script;
  }
  if (isLaunch && env.FAKE_AGENT_SCRIPT) return scriptFromFile(env.FAKE_AGENT_SCRIPT);
  return defaultScript(prompt);
}

export async function main(kind) {
  const argv = process.argv.slice(2);
  const env = { ...process.env };
  const launch = parseLaunch(kind, argv);
  if (launch.cd) process.chdir(launch.cd);
  const cwd = process.cwd();
  const home = env.HOME || homedir();
  const session = openSession(kind, { home, cwd, launch, now: Date.now() });
  const model = launch.model ?? DEFAULT_MODEL[kind];
  const provider = launch.provider ?? 'anthropic';
  const log = launchLog(kind, env);

  const launchFiles =
    kind === 'pi'
      ? readFiles(launch.fileArgs)
      : launch.prompt
        ? readFiles(taskFilesIn(launch.positionals.join('\n')))
        : [];
  log.record({
    kind,
    argv,
    cwd,
    pid: process.pid,
    started_ms: Date.now(),
    session_id: session.id,
    session_source: session.source,
    transcript: session.path,
    model: kind === 'pi' ? `${provider}/${model}` : model,
    task_files: launchFiles.map((file) => file.path),
    system_prompts: systemPrompts(kind, launch),
    herdr_pane_id: env.HERDR_PANE_ID ?? null,
    launch,
  });

  const herdr = herdrReporter(kind, env, session);
  const agent = new FakeAgent({
    kind,
    cwd,
    env,
    session,
    model,
    transcript: openTranscript(kind, session, { cwd, model, provider, thinking: launch.thinking }),
    herdr,
    hooks: loadHooks(kind, { home, cwd, launch }),
    log,
    input: terminalInput(),
  });

  try {
    await agent.start(session.source);
    const first = kind === 'pi' ? piFirstMessage(launchFiles, launch.prompt) : launch.prompt;
    if (first) {
      const script = scriptFor(first, launchFiles, env, true);
      if (!script.herdrReports) herdr.silence();
      await agent.prompt(first, script, { taskFiles: kind === 'pi' ? [] : launchFiles });
      for (const later of launch.laterPrompts) await agent.prompt(later, scriptFor(later, [], env, false));
    } else {
      await agent.setState('idle');
      agent.out('(idle) >');
    }
    if (launch.print) {
      log.event('exit', { code: 0 });
      process.exit(0);
    }
    // Like a TUI: alive at its prompt until killed, even when its input has ended.
    setInterval(() => {}, 1 << 30);
    for (;;) {
      const line = await agent.input.next();
      if (line.trim() === '') continue;
      const files = readFiles(taskFilesIn(line));
      await agent.prompt(line, scriptFor(line, files, env, false), { taskFiles: files });
    }
  } catch (error) {
    if (!(error instanceof ScriptError)) throw error;
    process.stderr.write(`fake ${kind}: ${error.message}\n`);
    log.event('exit', { code: 2, error: error.message });
    process.exit(2);
  }
}
