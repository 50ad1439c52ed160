/**
 * The plan-mode controls at the head of the panel: a toggle ("Plan", pressed while plan mode is on) and, in plan
 * mode, "Approve plan". They only ask the extension (agent/mode); the mode shown is the server's answer.
 */
import type { AgentMode } from "../src/protocol";
import { el } from "./dom";

export class PlanControls {
  readonly toggle: HTMLButtonElement;
  readonly approve: HTMLButtonElement;
  private mode: AgentMode = "act";

  constructor(setMode: (mode: AgentMode) => void, approvePlan: () => void) {
    this.toggle = el(
      "button",
      { id: "plan-toggle", type: "button", "aria-pressed": "false", title: "Plan mode: the agent reads and searches only, and writes a plan to the task list" },
      "Plan",
    );
    this.approve = el("button", { id: "approve-plan", type: "button", title: "Leave plan mode and let the agent carry out the plan" }, "Approve plan");
    this.toggle.addEventListener("click", () => setMode(this.mode === "plan" ? "act" : "plan"));
    this.approve.addEventListener("click", approvePlan);
    this.render("act");
  }

  render(mode: AgentMode): void {
    this.mode = mode;
    this.toggle.setAttribute("aria-pressed", String(mode === "plan"));
    this.toggle.classList.toggle("on", mode === "plan");
    this.approve.hidden = mode !== "plan";
  }
}
