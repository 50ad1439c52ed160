/** What to tell the user when no Python could run the server: every path tried, and the fix. */
import type { InterpreterCandidate } from "./interpreter";

export interface Tried {
  candidate: InterpreterCandidate;
  probe: { ok: boolean; missing: boolean; detail: string };
}

const SOURCE: Record<InterpreterCandidate["source"], string> = {
  setting: "agentls.pythonPath",
  pythonExtension: "the Python extension's interpreter",
  privateEnv: "the private environment",
  default: "the default",
};

function why(t: Tried): string {
  const detail = t.probe.detail.trim();
  if (t.probe.missing) return `could not be run${detail ? ` (${detail})` : ""}`;
  return `runs, but agentls is not installed in it${detail ? ` (${detail})` : ""}`;
}

/** The setting the user chose, when it is what failed: this must be said even if a fallback works. */
export function failedSetting(tried: Tried[]): Tried | undefined {
  return tried.find((t) => t.candidate.source === "setting" && !t.probe.ok);
}

export function describeFailedSetting(t: Tried): string {
  const fix = t.probe.missing
    ? "point it at a Python that exists and has agentls installed, or clear it to let the extension look for one"
    : `install agentls into it (${t.candidate.path} -m pip install agentls), or clear the setting`;
  return `agentls.pythonPath is "${t.candidate.path}", which ${why(t)}. Fix: ${fix}.`;
}

/** One message naming every interpreter tried and why it did not do. */
export function describeNoInterpreter(tried: Tried[]): string {
  const chosen = failedSetting(tried);
  if (chosen) return describeFailedSetting(chosen);
  if (tried.length === 0) return "No Python interpreter was found. Fix: install Python 3.10+ or set agentls.pythonPath.";
  const list = tried.map((t) => `${t.candidate.path} (${SOURCE[t.candidate.source]}) ${why(t)}`).join("; ");
  return `No Python with agentls was found: ${list}. Fix: set agentls.pythonPath to a Python with agentls installed, or run Agent: Restart Server to set up a private environment.`;
}
