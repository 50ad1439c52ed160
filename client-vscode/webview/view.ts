/** Renders the view: the log (whole, or the items that changed), the approvals, and the chrome around it. */
import { meterText, nextRequestSentence, usableWindowSentence } from "../src/shared/format";
import type { ServerStatus } from "../src/shared/messages";
import { focusAfterRender, focusBeforeRender, placeLooseApprovals, showApprovalJump } from "./approvals";
import { el } from "./dom";
import { persist, post } from "./host";
import { app, ctxEl, follower, log, modelEl, picker, progressEl, sendBtn, serverEl, stopBtn, todoPanel } from "./layout";
import { renderItem } from "./render";
import { state } from "./state";

const PHASE_LABEL: Record<ServerStatus["phase"], string> = {
  starting: "Starting the agent server…",
  running: "",
  restarting: "The agent server is restarting…",
  stopped: "The agent server is stopped.",
  error: "The agent server is not running.",
  setup: "Setting up the agent's Python environment…",
};

// What the offline demo model answers (server/agentls/demo): shown in an empty chat while it is the one answering.
const DEMO_CAN = [
  ["read README.md", "reads a file you name"],
  ["list the files", "lists the workspace"],
  ["search for TODO", "searches the workspace"],
  ["run ls -la", "runs a command once you approve it"],
  ["edit notes.md", "edits a file: you see the diff and approve it first"],
];

function emptyHint(): HTMLElement {
  const hint = el(
    "div",
    { class: "empty" },
    el("p", {}, "Ask the agent about your workspace."),
    el("p", {}, "Type / for commands, @ to attach a file; Add Selection to Chat (Ctrl+Alt+A) quotes the editor selection."),
  );
  if (state.usage?.demo) {
    hint.append(
      el("p", { class: "demo-can" }, "The offline demo model answers (no API key is set). It follows a few rules; try:"),
      el("ul", { class: "demo-can" }, ...DEMO_CAN.map(([prompt, what]) => el("li", {}, el("code", {}, prompt), ` — ${what}`))),
      el("p", { class: "demo-can" }, "Set an API key (Agent: Set API Key) to talk to a real model."),
    );
  }
  return hint;
}

export function render(all: boolean, dirty: Set<number>): void {
  // a re-rendered approval card keeps the focus it had (which button, or the reason field)
  const refocus = focusBeforeRender();
  const items = state.transcript.items;
  if (all) {
    log.replaceChildren(...items.map(renderItem));
    if (items.length === 0 && !state.loading) log.append(emptyHint());
  } else {
    // the empty chat's hint follows who answers (the demo's rules appear once the usage says it is the demo)
    const hint = log.querySelector(":scope > .empty");
    const showsDemo = hint?.querySelector(".demo-can") != null;
    if (hint && showsDemo !== Boolean(state.usage?.demo)) hint.replaceWith(emptyHint());
    for (const i of dirty) {
      const item = items[i];
      const old = log.querySelector(`:scope > [data-idx="${i}"]`);
      if (!item) continue;
      const next = renderItem(item, i);
      if (old) old.replaceWith(next);
      else {
        log.querySelector(":scope > .empty")?.remove();
        log.append(next);
      }
    }
  }
  placeLooseApprovals();
  showApprovalJump();
  renderChrome();
  follower.afterRender();
  focusAfterRender(refocus);
  persist();
}

function renderChrome(): void {
  const { model, usage, server, busy } = state;
  modelEl.textContent = model ? model : "";
  modelEl.hidden = !model || picker.ready;
  if (usage) {
    ctxEl.textContent = meterText(usage);
    ctxEl.title = [`Context: ${usableWindowSentence(usage)}`, nextRequestSentence(usage.nextRequest)].filter(Boolean).join("\n");
    ctxEl.className = `ctx level-${usage.level}`;
    ctxEl.hidden = false;
  } else ctxEl.hidden = true;
  const text = server.phase === "running" ? "" : server.message ? server.message : PHASE_LABEL[server.phase];
  serverEl.replaceChildren();
  serverEl.className = `server phase-${server.phase}`;
  if (text) {
    serverEl.append(el("span", {}, text));
    if (server.phase === "error" || server.phase === "stopped") {
      const b = el("button", { type: "button", class: "restart" }, "Restart server");
      b.addEventListener("click", () => post({ type: "restartServer" }));
      serverEl.append(b);
    }
  }
  serverEl.hidden = !text;
  stopBtn.hidden = !busy;
  // aria-disabled, not disabled: Send stays in the Tab order (input → Send → Stop) while a turn runs
  sendBtn.setAttribute("aria-disabled", String(busy));
  app.classList.toggle("busy", busy);
  if (!busy) progressEl.textContent = "";
  todoPanel.render(state.todos);
}
