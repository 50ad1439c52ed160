/** The view's state: the transcript it renders and what the header, the composer and the cards show. */
import type { CommandInfo, ContextUsage, Todo } from "../src/protocol";
import type { ServerStatus } from "../src/shared/messages";
import * as T from "../src/shared/transcript";
import { saved } from "./host";

export const state = {
  transcript: T.emptyTranscript() as T.Transcript,
  /** Until the extension's first `init` (or while it fetches the server's record): no "empty" hint. */
  loading: true,
  busy: false,
  server: { phase: "starting" } as ServerStatus,
  model: saved?.model ?? "",
  usage: undefined as ContextUsage | undefined,
  todos: (saved?.todos ?? []) as Todo[],
  todosOpen: saved?.todosOpen ?? true,
  customCommands: [] as CommandInfo[],
};

/** The details (thinking, tool cards, long messages) the user opened, by key. */
export const openDetails = new Set<string>(saved?.open ?? []);

export function lastIndex(): number {
  return state.transcript.items.length - 1;
}
