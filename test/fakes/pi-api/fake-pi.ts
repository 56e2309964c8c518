// A fake of Pi's extension host, built from the real API's types (plugins/pi/src/pi-api.ts mirrors
// @earendil-works/pi-coding-agent's ExtensionAPI): it records what an extension registers, sends,
// notifies and draws, and runs the events a session goes through. Message delivery follows Pi's
// AgentSession.sendCustomMessage: a steer while streaming waits in a queue until the run takes it;
// an idle session with triggerTurn writes the message and runs a turn. A written message is handed
// to the `message_end` handlers first and appended to the session after they return, as Pi does.
// `writes: 'never'` is a Pi that accepts messages and dies before writing any.

import type {
  CustomMessage,
  EventBus,
  ExtensionAPI,
  ExtensionContext,
  MessageRenderer,
  PiComponent,
  PiTheme,
  PiToolDefinition,
  SessionEntryLike,
} from '../../../plugins/pi/src/pi-api.js';

// biome-ignore lint/suspicious/noExplicitAny: handlers of every event shape live in one table
type AnyHandler = (event: any, ctx: ExtensionContext) => unknown;

export interface SentMessage {
  message: { customType: string; content: string; display: boolean; details?: unknown };
  options: { triggerTurn?: boolean; deliverAs?: 'steer' | 'followUp' | 'nextTurn' } | undefined;
  /** What the session was doing when the extension sent it. */
  streaming: boolean;
}

export interface FakePiOptions {
  writes?: 'auto' | 'never';
  hasUI?: boolean;
  sessionId?: string;
  /** Called after each entry is appended (the e2e host logs it). */
  onAppend?: (entry: SessionEntryLike & { content?: string }) => void;
}

export const PLAIN_THEME: PiTheme = { fg: (_color, text) => text, bold: (text) => text };

export class FakePi {
  readonly handlers = new Map<string, AnyHandler[]>();
  readonly commands = new Map<
    string,
    { description?: string; handler: (args: string, ctx: ExtensionContext) => Promise<void> }
  >();
  readonly shortcuts = new Map<
    string,
    { description?: string; handler: (ctx: ExtensionContext) => Promise<void> | void }
  >();
  readonly renderers = new Map<string, MessageRenderer>();
  readonly tools = new Map<string, PiToolDefinition>();
  readonly sent: SentMessage[] = [];
  readonly entries: Array<SessionEntryLike & { content?: string }> = [];
  readonly notifications: Array<{ message: string; type: string | undefined }> = [];
  readonly statuses = new Map<string, string | undefined>();
  readonly widgets = new Map<string, string[] | undefined>();
  /** Every `custom()` component the extension opened, still open or not. */
  readonly customs: PiComponent[] = [];
  /** custom() components not closed yet; Pi shows input() and editor() in their place. */
  openCustoms = 0;
  /**
   * Dialogs asked while a custom() component was open: in Pi the dialog takes the component's place
   * and Pi's own editor comes back after it, so the component is lost and never closes.
   */
  dialogsOverCustom = 0;
  /** What confirm() and editor() answer, and the titles they were asked with. */
  confirmAnswer = false;
  editorAnswer: string | undefined;
  /** What editor() was prefilled with, last call. */
  editorPrefill: string | undefined;
  /** What input() answers, one per call, in order (undefined once empty: cancelled). */
  inputAnswers: Array<string | undefined> = [];
  readonly prompts: string[] = [];
  /** Turns started by a message with triggerTurn. */
  turns = 0;
  streaming = false;
  writes: 'auto' | 'never';
  private readonly steerQueue: CustomMessage[] = [];
  private readonly bus = new Map<string, Set<(data: unknown) => void>>();
  private nextId = 1;
  readonly sessionId: string;
  readonly ctx: ExtensionContext;
  readonly api: ExtensionAPI;

  constructor(private readonly options: FakePiOptions = {}) {
    this.writes = options.writes ?? 'auto';
    this.sessionId = options.sessionId ?? 'session-1';
    this.ctx = {
      hasUI: options.hasUI ?? true,
      cwd: process.cwd(),
      isIdle: () => !this.streaming,
      sessionManager: {
        getEntries: () => this.entries,
        getSessionId: () => this.sessionId,
        getSessionFile: () => undefined,
        getLeafId: () => this.entries.at(-1)?.id ?? null,
      },
      ui: {
        notify: (message, type) => void this.notifications.push({ message, type }),
        setStatus: (key, text) => void this.statuses.set(key, text),
        setWidget: (key, content) => void this.widgets.set(key, content),
        custom: <T>(factory: Parameters<ExtensionContext['ui']['custom']>[0]) =>
          new Promise<T>((resolve) => {
            this.openCustoms++;
            const component = factory({ requestRender: () => {} }, PLAIN_THEME, {}, (result) => {
              this.openCustoms--;
              resolve(result as T);
            });
            this.customs.push(component);
          }),
        confirm: async (title, message) => {
          this.prompts.push(`${title} ${message}`);
          return this.confirmAnswer;
        },
        editor: async (title, prefill) => {
          if (this.openCustoms > 0) this.dialogsOverCustom++;
          this.prompts.push(title);
          this.editorPrefill = prefill;
          return this.editorAnswer;
        },
        input: async (title) => {
          if (this.openCustoms > 0) this.dialogsOverCustom++;
          this.prompts.push(title);
          return this.inputAnswers.shift();
        },
      },
    };
    const events: EventBus = {
      on: (channel, handler) => {
        const set = this.bus.get(channel) ?? new Set();
        set.add(handler);
        this.bus.set(channel, set);
        return () => set.delete(handler);
      },
      emit: (channel, data) => {
        for (const handler of this.bus.get(channel) ?? []) handler(data);
      },
    };
    this.api = {
      on: (event: string, handler: AnyHandler) => {
        const list = this.handlers.get(event) ?? [];
        list.push(handler);
        this.handlers.set(event, list);
        return () => list.splice(list.indexOf(handler), 1);
      },
      registerCommand: (name, options) => void this.commands.set(name, options),
      registerShortcut: (key, options) => void this.shortcuts.set(key, options),
      registerMessageRenderer: (customType, renderer) =>
        void this.renderers.set(customType, renderer as MessageRenderer),
      registerTool: (tool: PiToolDefinition) => void this.tools.set(tool.name, tool),
      sendMessage: (message, options) => this.sendMessage(message, options),
      events,
    } as ExtensionAPI;
  }

  /** Runs every handler of `event` in registration order, as Pi's ExtensionRunner does; returns their results. */
  async emit(event: string, payload: Record<string, unknown> = {}): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const handler of this.handlers.get(event) ?? []) {
      results.push(await handler({ type: event, ...payload }, this.ctx));
    }
    return results;
  }

  /** The model calls a registered tool, as Pi's agent loop does: a throw is a failed call. */
  async callTool(name: string, params: unknown): Promise<{ isError: boolean; text: string }> {
    const tool = this.tools.get(name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    try {
      const result = await tool.execute(`call-${this.nextId++}`, params, undefined, undefined, this.ctx);
      return { isError: false, text: result.content.map((item) => item.text).join('\n') };
    } catch (error) {
      return { isError: true, text: error instanceof Error ? error.message : String(error) };
    }
  }

  /** pi.events, for what another extension (pi-todo) would emit. */
  busEmit(channel: string, data: unknown): void {
    this.api.events.emit(channel, data);
  }

  private sendMessage(message: SentMessage['message'], options: SentMessage['options']): void {
    this.sent.push({ message, options, streaming: this.streaming });
    const custom: CustomMessage = { role: 'custom', ...message, timestamp: Date.now() };
    if (this.writes === 'never') return;
    if (options?.deliverAs === 'nextTurn') return;
    if (this.streaming) {
      this.steerQueue.push(custom);
      return;
    }
    if (options?.triggerTurn) {
      this.turns++;
      void this.write(custom).then(() => this.emit('agent_end'));
      return;
    }
    void this.write(custom);
  }

  /** A message becomes an entry: message_end handlers first, then the append (Pi's order). */
  private async write(message: CustomMessage): Promise<void> {
    await this.emit('message_start', { message });
    await this.emit('message_end', { message });
    this.append({
      type: 'custom_message',
      id: `e${this.nextId++}`,
      customType: message.customType,
      content: message.content,
      details: message.details,
    });
    await this.emit('turn_end');
  }

  append(entry: SessionEntryLike & { content?: string }): void {
    this.entries.push(entry);
    this.options.onAppend?.(entry);
  }

  /** The running agent reaches a turn boundary: queued steer messages are written. */
  async takeSteering(): Promise<void> {
    for (const message of this.steerQueue.splice(0)) await this.write(message);
  }

  /** The run ends: what is still queued is taken first (Pi drains steering before agent_end). */
  async endRun(): Promise<void> {
    await this.takeSteering();
    this.streaming = false;
    await this.emit('agent_end');
    await this.emit('agent_settled');
  }

  async startSession(): Promise<void> {
    await this.emit('session_start', { reason: 'startup' });
  }

  async shutdown(): Promise<void> {
    await this.emit('session_shutdown', { reason: 'quit' });
  }
}
