// The part of Pi's extension API (@earendil-works/pi-coding-agent, formerly @mariozechner/…, the
// `ExtensionAPI` of core/extensions/types.ts) this extension uses, with the real names and shapes.
// Declared here rather than imported so the package has no build-time dependency on Pi; Pi passes
// the real objects at run time, and test/fakes/pi-api implements exactly this surface.

/** pi-tui's Component: lines no wider than `width`, and optional keyboard input. */
export interface PiComponent {
  render(width: number): string[];
  invalidate(): void;
  handleInput?(data: string): void;
  dispose?(): void;
}

/** The theme handed to renderers: colour names are Pi's (accent, muted, dim, warning, error, success). */
export interface PiTheme {
  fg(color: string, text: string): string;
  bold(text: string): string;
}

export interface PiTui {
  requestRender(): void;
}

export interface ExtensionUIContext {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  setStatus(key: string, text: string | undefined): void;
  setWidget(
    key: string,
    content: string[] | undefined,
    options?: { placement?: 'aboveEditor' | 'belowEditor' },
  ): void;
  custom<T>(
    factory: (tui: PiTui, theme: PiTheme, keybindings: unknown, done: (result: T) => void) => PiComponent,
  ): Promise<T>;
  confirm(title: string, message: string): Promise<boolean>;
  editor(title: string, prefill?: string): Promise<string | undefined>;
  /** One line of text; undefined when cancelled. */
  input(title: string, placeholder?: string): Promise<string | undefined>;
}

/** A session entry as far as this extension reads one (a CustomMessageEntry has these fields). */
export interface SessionEntryLike {
  type: string;
  id?: string;
  customType?: string;
  details?: unknown;
}

export interface ReadonlySessionManager {
  getEntries(): SessionEntryLike[];
  getSessionId(): string;
  getSessionFile(): string | undefined;
  getLeafId(): string | null;
}

export interface ExtensionContext {
  ui: ExtensionUIContext;
  hasUI: boolean;
  cwd: string;
  sessionManager: ReadonlySessionManager;
  isIdle(): boolean;
}

export type ExtensionCommandContext = ExtensionContext;

/** A message an extension injects (`role: "custom"` once in the session). */
export interface CustomMessage<T = unknown> {
  role: 'custom';
  customType: string;
  content: string;
  display: boolean;
  details?: T;
  timestamp: number;
}

export interface AgentMessageLike {
  role: string;
  customType?: string;
  details?: unknown;
}

export interface BeforeAgentStartEvent {
  type: 'before_agent_start';
  prompt: string;
  systemPrompt: string;
}

export interface BeforeAgentStartEventResult {
  message?: { customType: string; content: string; display: boolean; details?: unknown };
}

/** A custom message entry an `agent_before_settle` handler may append (Pi 1.0 `CustomMessageEntryDraft`). */
export interface CustomMessageEntryDraft {
  type: 'custom_message';
  customType: string;
  content: string;
  display: boolean;
  details?: unknown;
}

/** Pi 1.0: fired before final settlement; may append entries and ask for one more request. */
export interface AgentBeforeSettleEvent {
  type: 'agent_before_settle';
  outcome: 'completed' | 'aborted' | 'error';
  entries: unknown[];
  continue: boolean;
}

export interface AgentBeforeSettleEventResult {
  entries?: unknown[];
  continue?: boolean;
}

export interface MessageRenderOptions {
  expanded: boolean;
}

export type MessageRenderer<T = unknown> = (
  message: CustomMessage<T>,
  options: MessageRenderOptions,
  theme: PiTheme,
) => PiComponent | undefined;

export type Handler<E, R = undefined> = (
  event: E,
  ctx: ExtensionContext,
) => Promise<R | undefined> | R | undefined;

/** Pi's shared event bus between extensions (pi.events); it does not replay past events. */
export interface EventBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
  emit(channel: string, data: unknown): void;
}

/** Pi's AgentToolResult: what a tool answers; a thrown error marks the call failed. */
export interface AgentToolResult<T = unknown> {
  content: Array<{ type: 'text'; text: string }>;
  details: T;
}

/**
 * Pi's ToolDefinition for `registerTool` (valid at load and after startup). `parameters` is a
 * TypeBox schema in Pi's types, which is JSON Schema; Pi validates arguments against it with AJV.
 */
export interface PiToolDefinition<T = unknown> {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: AgentToolResult<T>) => void) | undefined,
    ctx: ExtensionContext,
  ): Promise<AgentToolResult<T>>;
}

export interface ExtensionAPI {
  on(event: 'session_start', handler: Handler<{ type: 'session_start'; reason?: string }>): unknown;
  on(event: 'session_shutdown', handler: Handler<{ type: 'session_shutdown'; reason?: string }>): unknown;
  on(
    event: 'before_agent_start',
    handler: Handler<BeforeAgentStartEvent, BeforeAgentStartEventResult>,
  ): unknown;
  on(
    event: 'agent_before_settle',
    handler: Handler<AgentBeforeSettleEvent, AgentBeforeSettleEventResult>,
  ): unknown;
  on(event: 'message_end', handler: Handler<{ type: 'message_end'; message: AgentMessageLike }>): unknown;
  on(event: 'turn_end' | 'agent_end' | 'agent_settled', handler: Handler<{ type: string }>): unknown;
  /** The active session or its branch changed (`/resume`, `/new`, `/fork`, `/tree`). */
  on(event: 'session_switch' | 'session_fork' | 'session_tree', handler: Handler<{ type: string }>): unknown;
  registerCommand(
    name: string,
    options: { description?: string; handler: (args: string, ctx: ExtensionCommandContext) => Promise<void> },
  ): void;
  registerShortcut(
    shortcut: string,
    options: { description?: string; handler: (ctx: ExtensionContext) => Promise<void> | void },
  ): void;
  registerMessageRenderer<T = unknown>(customType: string, renderer: MessageRenderer<T>): void;
  registerTool<T = unknown>(tool: PiToolDefinition<T>): void;
  sendMessage<T = unknown>(
    message: { customType: string; content: string; display: boolean; details?: T },
    options?: { triggerTurn?: boolean; deliverAs?: 'steer' | 'followUp' | 'nextTurn' },
  ): void;
  events: EventBus;
}
