/** Which Python runs the server: pure selection order. */

export type InterpreterSource = "setting" | "pythonExtension" | "privateEnv" | "default";

export interface InterpreterCandidate {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** `agentls.pythonPath` (may be empty / whitespace). */
  setting?: string;
  /** the Python extension's active interpreter, when that extension is present. */
  pythonExtension?: string;
  /** the private environment's python, when it has been set up. */
  privateEnv?: string;
  /** the default command (python3 on POSIX, python on Windows). */
  fallback: string;
}

/**
 * Candidates in the order they are tried: the setting, else the Python
 * extension's interpreter, else `python3`. The private environment (set up
 * from the bundled wheel) comes before the bare default, and after an
 * interpreter the user chose, so a chosen interpreter that has agentls wins.
 * Duplicates are dropped.
 */
export function interpreterCandidates(inp: InterpreterInputs): InterpreterCandidate[] {
  const out: InterpreterCandidate[] = [];
  const add = (path: string | undefined, source: InterpreterSource) => {
    const p = path?.trim();
    if (p && !out.some((c) => c.path === p)) out.push({ path: p, source });
  };
  add(inp.setting, "setting");
  if (!inp.setting?.trim()) add(inp.pythonExtension, "pythonExtension");
  add(inp.privateEnv, "privateEnv");
  add(inp.fallback, "default");
  return out;
}

/** `${workspaceFolder}` and `~` expansion for the pythonPath setting. */
export function expandPythonPath(p: string, opts: { home?: string; workspaceFolder?: string }): string {
  let out = p.trim();
  if (opts.home && (out === "~" || out.startsWith("~/"))) out = opts.home + out.slice(1);
  if (opts.workspaceFolder) out = out.split("${workspaceFolder}").join(opts.workspaceFolder);
  return out;
}

/** Paths inside a venv, per platform. */
export function venvPython(venvDir: string, platform: string): string {
  return platform === "win32" ? `${venvDir}\\Scripts\\python.exe` : `${venvDir}/bin/python`;
}

export function serverArgs(): string[] {
  return ["-m", "agentls", "serve", "--stdio"];
}

/** Picks the newest `agentls-<version>-*.whl` from a directory listing. */
export function pickWheel(files: string[]): string | undefined {
  const wheels = files.filter((f) => /^agentls-[^-]+-.*\.whl$/.test(f));
  const ver = (f: string) => f.split("-")[1].split(".").map((x) => parseInt(x, 10) || 0);
  wheels.sort((a, b) => {
    const va = ver(a);
    const vb = ver(b);
    for (let i = 0; i < Math.max(va.length, vb.length); i++) {
      const d = (vb[i] ?? 0) - (va[i] ?? 0);
      if (d) return d;
    }
    return 0;
  });
  return wheels[0];
}
