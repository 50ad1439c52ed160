/**
 * The composer: Enter sends (a prompt, a slash command, a custom command), Shift+Enter breaks
 * the line, Escape stops a running turn; the suggestion list takes the arrows, Tab and Enter
 * while it is open.
 */
import { SLASH_COMMANDS, parseInput } from "../src/shared/slash";
import * as T from "../src/shared/transcript";
import { persist, post } from "./host";
import { input, sendBtn, stopBtn } from "./layout";
import { schedule } from "./schedule";
import { lastIndex, state } from "./state";
import { applyActive, closeSuggestions, idle, moveActive, suggesting, updateSuggestions } from "./suggestions";

function submit(): void {
  const parsed = parseInput(input.value, state.customCommands);
  switch (parsed.type) {
    case "empty":
      return;
    case "unknown":
      T.addNotice(
        state.transcript,
        `Unknown command \`/${parsed.name}\`. Commands: ${[...SLASH_COMMANDS.map((c) => c.name), ...state.customCommands.map((c) => c.name)].map((n) => `\`/${n}\``).join(", ")}. Start with \`//\` to send a literal slash.`,
        "warn",
      );
      schedule(false, lastIndex());
      return;
    case "command":
      post({ type: "command", name: parsed.name, args: parsed.args });
      break;
    case "custom":
      if (state.busy) return;
      post({ type: "customCommand", name: parsed.name, args: parsed.args });
      break;
    case "prompt":
      if (state.busy) return;
      post({ type: "send", text: parsed.text });
      break;
  }
  input.value = "";
  closeSuggestions();
  persist();
}

function onKey(e: KeyboardEvent): void {
  if (suggesting()) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      moveActive(e.key === "ArrowDown");
      return;
    }
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      // a complete slash command followed by Enter is sent, not completed again
      const exact = parseInput(input.value, state.customCommands);
      const complete = (exact.type === "command" || exact.type === "custom") && `/${exact.name}` === input.value.trim();
      if (!(e.key === "Enter" && complete)) {
        e.preventDefault();
        applyActive();
        return;
      }
    }
    if (e.key === "Escape") {
      e.preventDefault();
      closeSuggestions();
      return;
    }
  }
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
    return;
  }
  if (e.key === "Escape" && state.busy) {
    e.preventDefault();
    post({ type: "stop" });
  }
}

export function wireComposer(): void {
  input.addEventListener("keydown", onKey);
  input.addEventListener("input", () => {
    updateSuggestions();
    persist();
  });
  // Leaving the input closes its list, a moment later (a click elsewhere). Focus that comes back first
  // cancels that: after Stop the input can be focused again and `@hel` typed within those 150 ms, and the
  // late close dropped the query just sent, so its answer was ignored as stale (issue 24).
  let blurClose: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("blur", () => {
    clearTimeout(blurClose);
    blurClose = setTimeout(() => {
      blurClose = undefined;
      if (document.activeElement !== input) closeSuggestions("blur");
    }, 150);
  });
  input.addEventListener("focus", () => {
    const closing = blurClose !== undefined;
    clearTimeout(blurClose);
    blurClose = undefined;
    // back after the list was closed: the mention at the caret (if any) is asked again
    if (!closing && idle()) updateSuggestions();
  });
  sendBtn.addEventListener("click", () => submit());
  stopBtn.addEventListener("click", () => post({ type: "stop" }));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.busy && document.activeElement !== input) post({ type: "stop" });
  });
}
