// One fake agent session: prompts become turns, a turn runs script steps, and every turn ends the
// way the real harness ends one (Stop hooks, which may continue it; then idle). State goes to Herdr
// at each change: working while a turn runs, blocked while a question waits, idle between turns.

import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { runHooks } from './hooks.mjs';
import { readTool, shellTool } from './transcripts.mjs';

/** A Stop hook that blocks forever must not keep a test's agent busy forever. */
const MAX_CONTINUATIONS = 8;
const TICK_MS = 100;

const firstLine = (text) =>
  text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim()
    .slice(0, 80) ?? '';

export class FakeAgent {
  constructor({ kind, cwd, env, session, model, transcript, herdr, hooks, log, input }) {
    Object.assign(this, { kind, cwd, env, session, model, transcript, herdr, hooks, log, input });
    this.state = null;
    this.lastAssistant = null;
  }

  out(text) {
    process.stdout.write(`${text}\n`);
  }

  async setState(state, message) {
    if (this.state === state && !message) return;
    this.state = state;
    const report = await this.herdr.report(state, message);
    this.log.event('state', { state, message: message ?? null, report });
  }

  hookInput(event, fields) {
    const common = {
      session_id: this.session.id,
      transcript_path: this.session.path,
      cwd: this.cwd,
      hook_event_name: event,
    };
    if (this.kind === 'pi') {
      return {
        event,
        session_id: this.session.id,
        session_file: this.session.path,
        cwd: this.cwd,
        ...fields,
      };
    }
    // Codex sends model everywhere and the turn id on turn events (codex-rs/hooks/schema).
    const extra = this.kind === 'codex' ? { model: this.model } : {};
    if (this.kind === 'codex' && event !== 'SessionStart') extra.turn_id = this.transcript.turnId ?? '';
    return { ...common, permission_mode: 'default', ...extra, ...fields };
  }

  async hook(event, fields = {}, matchValue = undefined) {
    const input = this.hookInput(event, fields);
    const env = { ...this.env };
    if (this.kind === 'claude') env.CLAUDE_PROJECT_DIR = this.cwd;
    const plainTextIsContext = [
      'SessionStart',
      'UserPromptSubmit',
      'session_start',
      'before_agent_start',
      'agent_before_settle',
    ].includes(event);
    const result = await runHooks(this.hooks, event, {
      matchValue,
      input,
      cwd: this.cwd,
      env,
      plainTextIsContext,
    });
    if (result.ran.length > 0) this.log.event('hook', { name: event, input, ...result });
    for (const message of result.messages) this.out(`⚑ ${message}`);
    return result;
  }

  async start(source) {
    this.out(`[fake ${this.kind}] session ${this.session.id} · ${this.model}`);
    const event = this.kind === 'pi' ? 'session_start' : 'SessionStart';
    const fields = this.kind === 'pi' ? { reason: source } : { source, model: this.model };
    const result = await this.hook(event, fields, source);
    for (const context of result.contexts) this.transcript.context(event, context);
  }

  /** A user prompt: its hooks, its turn, and the turns its script goes on to. */
  async prompt(text, script, { taskFiles = [] } = {}) {
    this.log.event('prompt', { text, task_files: taskFiles.map((file) => file.path) });
    if (script.usage !== undefined) this.transcript.usage = script.usage;
    this.out(`> ${firstLine(text)}`);
    const event = this.kind === 'pi' ? 'before_agent_start' : 'UserPromptSubmit';
    this.transcript.prepareTurn();
    const submitted = await this.hook(event, { prompt: text });
    if (this.kind !== 'pi' && (submitted.block !== null || submitted.stop !== null)) {
      this.out(`⚑ prompt blocked by hook: ${submitted.block ?? submitted.stop}`);
      return;
    }
    await this.setState('working');
    this.transcript.turnStart();
    this.transcript.user(text);
    for (const context of submitted.contexts) this.transcript.context(event, context);
    for (const file of taskFiles) {
      const tool = readTool(this.kind, file.path);
      const id = this.transcript.toolCall(tool.name, tool.input);
      this.transcript.toolResult(id, tool.name, file.text, false);
    }
    await this.runSteps(script);
  }

  async runSteps(script) {
    let turnOpen = true;
    for (const step of script.steps) {
      if (!turnOpen) {
        await this.setState('working');
        this.transcript.turnStart();
        turnOpen = true;
      }
      await this.step(step);
      if ('reply' in step) {
        await this.endTurn(script);
        turnOpen = false;
      }
    }
    if (turnOpen) await this.endTurn(script);
  }

  /** Stop hooks (Pi: agent_before_settle) may continue the turn; then the agent goes idle. */
  async endTurn(script) {
    for (let round = 0; round <= MAX_CONTINUATIONS; round++) {
      const event = this.kind === 'pi' ? 'agent_before_settle' : 'Stop';
      const fields =
        this.kind === 'pi'
          ? { outcome: 'completed' }
          : { stop_hook_active: round > 0, last_assistant_message: this.lastAssistant };
      const result = await this.hook(event, fields);
      if (result.stop !== null) break;
      const reason = this.kind === 'pi' ? result.contexts.join('\n\n') : result.block;
      if (!reason || round === MAX_CONTINUATIONS) break;
      this.out(`↻ ${event} hook continues the turn: ${firstLine(reason)}`);
      if (this.kind === 'pi') this.transcript.context(event, reason);
      else this.transcript.user(reason);
      const steps = script.onStopBlock ?? [{ reply: `Continuing: ${firstLine(reason)}` }];
      for (const step of steps) await this.step(step);
    }
    this.transcript.turnEnd(this.lastAssistant);
    if (this.kind === 'pi') await this.hook('agent_end', { outcome: 'completed' });
    await this.setState('idle');
    this.out('(idle) >');
  }

  async step(step) {
    this.log.event('step', { step });
    if ('reply' in step) {
      this.transcript.assistant(step.reply);
      this.lastAssistant = step.reply;
      this.out(`● ${step.reply}`);
    } else if ('work_ms' in step) {
      await this.work(step.work_ms);
    } else if ('sleep_ms' in step) {
      this.out(`… quiet for ${step.sleep_ms} ms`);
      await sleep(step.sleep_ms);
    } else if ('hang' in step) {
      this.out('⋯ working (hung: the transcript will not change again)');
      await this.setState('working');
      await new Promise(() => {});
    } else if ('ask' in step) {
      await this.ask(step.ask);
    } else if ('crash' in step) {
      this.out(`✗ crashing with exit code ${step.crash}`);
      this.log.event('exit', { code: step.crash });
      process.exit(step.crash);
    } else if ('run' in step) {
      await this.run(step.run);
    } else if ('stop' in step) {
      this.out('■ exiting');
      this.log.event('exit', { code: 0 });
      process.exit(0);
    }
  }

  async work(ms) {
    const ticks = Math.max(1, Math.round(ms / TICK_MS));
    this.out(`⋯ working for ${ms} ms`);
    for (let k = 1; k <= ticks; k++) {
      await sleep(ms / ticks);
      const tool = shellTool(this.kind, `echo working ${k}/${ticks}`);
      const id = this.transcript.toolCall(tool.name, tool.input);
      this.transcript.toolResult(id, tool.name, `working ${k}/${ticks}`, false);
    }
  }

  async ask(question) {
    this.transcript.assistant(question);
    this.lastAssistant = question;
    this.out(`? ${question}`);
    // Claude Code tells its Notification hooks when it waits on the user (a permission prompt).
    if (this.kind === 'claude') {
      const type = 'permission_prompt';
      await this.hook('Notification', { message: question, notification_type: type }, type);
    }
    await this.setState('blocked', question);
    const answer = await this.input.next();
    this.log.event('answer', { text: answer });
    this.transcript.user(answer);
    await this.setState('working');
  }

  async run(command) {
    this.out(`$ ${command}`);
    const tool = shellTool(this.kind, command);
    const id = this.transcript.toolCall(tool.name, tool.input);
    const { code, output } = await new Promise((resolve) => {
      const child = spawn('/bin/sh', ['-c', command], {
        cwd: this.cwd,
        env: this.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const collect = (chunk) => {
        output += chunk;
        process.stdout.write(chunk);
      };
      child.stdout.setEncoding('utf8').on('data', collect);
      child.stderr.setEncoding('utf8').on('data', collect);
      child.on('error', (error) => resolve({ code: 127, output: output + error.message }));
      child.on('close', (exit, signal) => resolve({ code: exit ?? (signal ? 128 : 1), output }));
    });
    this.log.event('run', { command, code, output });
    this.transcript.toolResult(id, tool.name, output, code !== 0);
    this.out(`(exit ${code})`);
  }
}
