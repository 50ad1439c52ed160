/**
 * The chat webview: renders the transcript, streams events, sends prompts and commands.
 * host.ts talks to the extension, state.ts holds what is shown, hostMessages.ts folds what the
 * extension says, view.ts and render.ts draw it, composer.ts and suggestions.ts are the input.
 */
import type { ToWebview } from "../src/shared/messages";
import { wireComposer } from "./composer";
import { draftToSave } from "./draft";
import { post, savedFrom } from "./host";
import { onHostMessage } from "./hostMessages";
import { input } from "./layout";
import { wireLog } from "./logClicks";
import { flush, renderWith } from "./schedule";
import { openDetails, state } from "./state";
import { render } from "./view";

savedFrom(() => ({ ...draftToSave(input.value, state.transcript), model: state.model, open: [...openDetails], todos: state.todos, todosOpen: state.todosOpen }));
renderWith(render);
wireComposer();
wireLog();
window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as ToWebview;
  if (m && typeof m === "object" && typeof (m as { type?: unknown }).type === "string") onHostMessage(m);
});

flush();
post({ type: "ready" });

// test hook: synchronous render
(window as unknown as { __agentlsFlush?: () => void }).__agentlsFlush = flush;
