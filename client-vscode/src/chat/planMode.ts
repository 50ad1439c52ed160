/**
 * Plan mode (docs/protocol.md `agent/mode`): the panel's toggle, `/plan [off]` and "Approve plan".
 * The server owns the mode (saved with the conversation); the panel only asks for a switch and shows
 * what the server answers. Approving leaves plan mode and sends the turn that acts on the plan.
 */
import type { AgentClient } from "../client";
import { Methods, type AgentMode, type ModeResult } from "../protocol";
import type { Panel } from "./panel";
import type { Turns } from "./turns";

export const APPROVE_PROMPT = "The plan is approved: carry it out, following the task list.";

const NOTICE: Record<AgentMode, string> = {
  plan: "**Plan mode is on**: the agent only reads and searches, and writes its plan to the task list. **Approve plan** (or `/plan off`) lets it act.",
  act: "**Plan mode is off**: the agent acts (changes still ask as your settings say).",
};

/** `/plan` → plan mode; `/plan off` (or `approve`, `act`) → acting; anything else: undefined. */
export function modeOfArgs(args: string): AgentMode | undefined {
  const word = args.trim().toLowerCase();
  if (word === "" || word === "on") return "plan";
  if (word === "off" || word === "approve" || word === "act") return "act";
  return undefined;
}

export class PlanMode {
  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly turns: Turns,
  ) {}

  /** Switch; the panel shows the mode the server answers. False when the server refused. */
  async set(mode: AgentMode): Promise<boolean> {
    try {
      const r = await this.agent.request<ModeResult>(Methods.mode, { mode });
      this.panel.setMode(r.mode);
      this.panel.notice(NOTICE[r.mode], "info");
      return true;
    } catch (e) {
      this.panel.notice(`Plan mode could not be switched: ${(e as Error).message ?? e}`, "error");
      return false;
    }
  }

  /** "Approve plan": acting again, then the turn that carries the plan out. */
  async approve(): Promise<void> {
    if (await this.set("act")) await this.turns.send(APPROVE_PROMPT);
  }

}
