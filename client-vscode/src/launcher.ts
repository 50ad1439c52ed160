/**
 * Finding a Python that can run `python -m agentls serve --stdio`, and the
 * one-click private environment built from the wheel the .vsix ships.
 */
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  expandPythonPath,
  interpreterCandidates,
  pickWheel,
  venvPython,
  type InterpreterCandidate,
} from "./shared/interpreter";

export interface ProbeResult {
  ok: boolean;
  /** the interpreter itself could not run (ENOENT, …) */
  missing: boolean;
  detail: string;
}

export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; cwd?: string; onLine?: (line: string) => void; token?: vscode.CancellationToken } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let child: cp.ChildProcess;
    try {
      child = cp.spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, PYTHONUNBUFFERED: "1" }, windowsHide: true });
    } catch (error) {
      resolve({ code: null, stdout, stderr, error: error as NodeJS.ErrnoException });
      return;
    }
    const timer = opts.timeoutMs ? setTimeout(() => child.kill(), opts.timeoutMs) : undefined;
    const sub = opts.token?.onCancellationRequested(() => child.kill());
    const feed = (chunk: Buffer, which: "out" | "err") => {
      const s = chunk.toString();
      if (which === "out") stdout += s;
      else stderr += s;
      if (opts.onLine) for (const l of s.split(/\r?\n/)) if (l.trim()) opts.onLine(l);
    };
    child.stdout?.on("data", (c: Buffer) => feed(c, "out"));
    child.stderr?.on("data", (c: Buffer) => feed(c, "err"));
    let settled = false;
    const done = (code: number | null, error?: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      sub?.dispose();
      resolve({ code, stdout, stderr, error });
    };
    child.on("error", (e) => done(null, e as NodeJS.ErrnoException));
    child.on("close", (code) => done(code));
  });
}

/** `<python> -c "import agentls"` */
export async function probe(python: string): Promise<ProbeResult> {
  const r = await run(python, ["-c", "import agentls, sys; print(getattr(agentls, '__version__', '?'), sys.version.split()[0])"], {
    timeoutMs: 30_000,
  });
  if (r.error) return { ok: false, missing: true, detail: r.error.message };
  if (r.code === 0) return { ok: true, missing: false, detail: r.stdout.trim() };
  return { ok: false, missing: false, detail: (r.stderr.trim().split("\n").pop() ?? "").trim() || `exit code ${r.code}` };
}

/** The Python extension's active interpreter, if that extension is installed. Optional. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  const work = (async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(resource);
      const resolved = envs.resolveEnvironment ? await envs.resolveEnvironment(active) : undefined;
      const exe: string | undefined = resolved?.executable?.uri?.fsPath ?? active?.path;
      if (exe) return exe;
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    const cmd: string[] | undefined = details?.execCommand;
    return cmd && cmd.length ? cmd[0] : undefined;
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 15_000)));
  try {
    return await Promise.race([work, timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export function privateEnvDir(ctx: vscode.ExtensionContext): string {
  return path.join(ctx.globalStorageUri.fsPath, "venv");
}

export function privateEnvPython(ctx: vscode.ExtensionContext): string | undefined {
  const py = venvPython(privateEnvDir(ctx), process.platform);
  return fs.existsSync(py) ? py : undefined;
}

export function bundledWheel(ctx: vscode.ExtensionContext): string | undefined {
  const dir = ctx.asAbsolutePath("wheel");
  let files: string[] = [];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const w = pickWheel(files);
  return w ? path.join(dir, w) : undefined;
}

export async function candidates(ctx: vscode.ExtensionContext): Promise<InterpreterCandidate[]> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const setting = vscode.workspace.getConfiguration("agentls", folder?.uri).get<string>("pythonPath", "");
  const expanded = setting ? expandPythonPath(setting, { home: os.homedir(), workspaceFolder: folder?.uri.fsPath }) : "";
  const fromExt = expanded ? undefined : await pythonExtensionInterpreter(folder?.uri);
  return interpreterCandidates({
    setting: expanded,
    pythonExtension: fromExt,
    privateEnv: privateEnvPython(ctx),
    fallback: process.platform === "win32" ? "python" : "python3",
  });
}

export interface Resolution {
  python?: string;
  tried: { candidate: InterpreterCandidate; probe: ProbeResult }[];
}

/** First candidate in which agentls is importable. */
export async function resolveInterpreter(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<Resolution> {
  const tried: Resolution["tried"] = [];
  for (const c of await candidates(ctx)) {
    const p = await probe(c.path);
    tried.push({ candidate: c, probe: p });
    log.info(`interpreter ${c.path} (${c.source}): ${p.ok ? `agentls ${p.detail}` : `no agentls: ${p.detail}`}`);
    if (p.ok) return { python: c.path, tried };
  }
  return { tried };
}

/**
 * `python3 -m venv <globalStorage>/venv` + `pip install <bundled wheel>`,
 * in a progress notification. Returns the venv's python.
 */
export async function setupPrivateEnv(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  basePython: string,
): Promise<string> {
  const wheel = bundledWheel(ctx);
  if (!wheel) throw new Error("this build of the extension ships no agentls wheel");
  const dir = privateEnvDir(ctx);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Agent: setting up a private Python environment", cancellable: true },
    async (progress, token) => {
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      progress.report({ message: `creating ${dir}` });
      log.info(`setup: ${basePython} -m venv ${dir}`);
      let r = await run(basePython, ["-m", "venv", "--clear", dir], { token, onLine: (l) => log.info(`venv: ${l}`) });
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      if (r.code !== 0) throw new Error(`python -m venv failed: ${(r.error?.message ?? r.stderr).trim().split("\n").pop()}`);
      const py = venvPython(dir, process.platform);
      progress.report({ message: `installing ${path.basename(wheel)}` });
      log.info(`setup: ${py} -m pip install ${wheel}`);
      r = await run(py, ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", wheel], {
        token,
        onLine: (l) => {
          log.info(`pip: ${l}`);
          const m = /^(Collecting|Downloading|Installing|Building|Successfully)\b.*/.exec(l);
          if (m) progress.report({ message: l.slice(0, 80) });
        },
      });
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      if (r.code !== 0) throw new Error(`pip install failed: ${r.stderr.trim().split("\n").pop()}`);
      return py;
    },
  );
}
