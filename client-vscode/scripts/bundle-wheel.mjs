// Puts the agentls wheel into client-vscode/wheel/ so the .vsix can ship it
// (the extension installs it into a private venv when no Python has agentls).
//
// Source, in order:
//   1. $AGENTLS_WHEEL (a path to a built wheel)
//   2. a fresh `python -m pip wheel --no-deps` of the repository, built from a
//      temporary copy so the repository gets no build/ or *.egg-info litter
//   3. the newest <repo>/dist/agentls-*.whl (e.g. from `python -m build`)
// Python: $AGENTLS_PYTHON, else <repo>/.venv/bin/python, else python3.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(ext, "..");
const out = path.join(ext, "wheel");

function python() {
  if (process.env.AGENTLS_PYTHON) return process.env.AGENTLS_PYTHON;
  const venv = path.join(repo, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

function wheelsIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^agentls-.*\.whl$/.test(f))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

function buildFresh() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "agentls-wheel-"));
  try {
    const src = path.join(tmp, "src");
    mkdirSync(src);
    for (const name of ["pyproject.toml", "setup.cfg", "setup.py", "README.md", "LICENSE", "MANIFEST.in"]) {
      if (existsSync(path.join(repo, name))) copyFileSync(path.join(repo, name), path.join(src, name));
    }
    cpSync(path.join(repo, "server"), path.join(src, "server"), {
      recursive: true,
      filter: (p) => !/(__pycache__|\.egg-info|\.pyc$)/.test(p),
    });
    // pyproject names README.md as the readme; a stub keeps an early checkout buildable
    if (!existsSync(path.join(src, "README.md"))) copyFileSync(path.join(repo, "pyproject.toml"), path.join(src, "README.md"));
    const dist = path.join(tmp, "dist");
    try {
      execFileSync(python(), ["-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", dist, src], {
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      process.stderr.write(String(e.stdout ?? "") + String(e.stderr ?? ""));
      throw e;
    }
    const built = wheelsIn(dist);
    if (!built.length) throw new Error("pip wheel produced no agentls wheel");
    return copy(built[0]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function copy(wheel) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const dest = path.join(out, path.basename(wheel));
  copyFileSync(wheel, dest);
  console.log(`wheel: ${path.relative(ext, dest)} (${statSync(dest).size} bytes)`);
  return dest;
}

if (process.env.AGENTLS_WHEEL) {
  copy(process.env.AGENTLS_WHEEL);
} else {
  try {
    buildFresh();
  } catch (e) {
    const dist = wheelsIn(path.join(repo, "dist"));
    if (!dist.length) {
      console.error(`could not build the agentls wheel: ${e.message}`);
      process.exit(1);
    }
    console.warn(`fresh build failed (${e.message}); using ${dist[0]}`);
    copy(dist[0]);
  }
}
