// What the sidebar's input (input.ts) and menu (menu.ts) act on: the app's state, view and frame as
// last drawn, and the few things they ask of it. The app (app.ts) is the one Board; it hands blessed
// over as `tui`, since it alone loads the package (the others take its types, which the bundle erases).

import type blessed from 'blessed';
import type { Actions } from './actions.js';
import type { Frame, Segment, SidebarState, ViewState } from './model/types.js';

export type Tui = typeof blessed;
export type Screen = blessed.Widgets.Screen;

export interface Board {
  readonly tui: Tui;
  readonly screen: Screen;
  readonly actions: Actions;
  /** Undefined until the first read. */
  readonly state: SidebarState | undefined;
  readonly view: ViewState;
  /** The frame last drawn, which a click or ⏎ is read against. */
  readonly frame: Frame | undefined;
  setView(view: ViewState): void;
  /** A message on the bottom line for a few seconds. */
  say(message: string): void;
  reload(): Promise<void>;
  render(): void;
  /** The theme's colour for a role, or undefined when mono. */
  colour(role: Segment['fg']): string | undefined;
}
