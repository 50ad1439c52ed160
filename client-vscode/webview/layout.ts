/** The panel's elements: header (model, meter), server line, the log, the composer, the progress line. */
import { el } from "./dom";
import { Follower } from "./follow";
import { persist, post } from "./host";
import { ModelPicker } from "./modelPicker";
import { PlanControls } from "./planMode";
import { state } from "./state";
import { TodoPanel } from "./todos";

export const app = document.getElementById("app") ?? document.body.appendChild(el("div", { id: "app" }));
const header = el("header", { class: "bar" });
export const modelEl = el("span", { class: "model", title: "Model" });
export const ctxEl = el("span", { class: "ctx", title: "Context used" });
export const picker = new ModelPicker((id) => post({ type: "setModel", model: id }));
// plan mode's controls lead the header: the input's Tab neighbours stay the model picker and Send
export const planControls = new PlanControls(
  (mode) => post({ type: "setMode", mode }),
  () => post({ type: "approvePlan" }),
);
header.append(el("div", { class: "plan-controls" }, planControls.toggle, planControls.approve), picker.element, modelEl, ctxEl);
export const serverEl = el("div", { class: "server", role: "status", "aria-live": "polite" });
export const log = el("main", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });
export const progressEl = el("div", { class: "progress", "aria-live": "polite" });
export const suggest = el("ul", { class: "suggest", role: "listbox", id: "suggest", "aria-label": "Suggestions" });
suggest.hidden = true;
export const input = el("textarea", {
  id: "input",
  rows: "3",
  "aria-label": "Message the agent",
  "aria-autocomplete": "list",
  "aria-controls": "suggest",
  placeholder: "Ask the agent… (/ for commands, @ to attach a file, Enter to send, Shift+Enter for a new line)",
});
export const sendBtn = el("button", { id: "send", class: "primary", type: "button", title: "Send (Enter)" }, "Send");
export const stopBtn = el("button", { id: "stop", type: "button", title: "Stop (Escape)" }, "Stop");
stopBtn.hidden = true;
// shown while an approval waits: the next Tab stop after the input (approvals.ts), so the question is one key away
export const approvalJump = el("button", { id: "go-approval", class: "go-approval", type: "button", title: "Go to the approval that waits for you" }, "Approval waiting ↑");
approvalJump.hidden = true;
export const todoPanel = new TodoPanel(state.todosOpen, (open) => {
  state.todosOpen = open;
  persist();
});
const composer = el(
  "footer",
  { class: "composer" },
  suggest,
  todoPanel.element,
  input,
  el("div", { class: "actions" }, el("span", { class: "hint" }, "/help for commands"), approvalJump, sendBtn, stopBtn),
);
export const follower = new Follower(log);
// DOM order is the Tab order (input → Send → Stop → the transcript's cards); CSS `order` puts the composer last.
app.append(header, serverEl, composer, el("div", { class: "log-area" }, log, follower.button), progressEl);
