// A scripted model for the e2e steps: editor_mock_api.py (agentls' mock API) with a
// script of replies, recording every /v1/messages body it receives to a JSONL file.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Starts it; `url` resolves to its base URL once it listens. `models` (optional): mock_model()
 * keyword arguments, served as the endpoint's Models API.
 */
export function startScriptedApi(python, dir, name, replies, models) {
  const script = path.join(dir, `${name}-script.json`);
  const record = path.join(dir, `${name}-requests.jsonl`);
  writeFileSync(script, JSON.stringify(replies));
  const args = [path.join(here, "editor_mock_api.py"), script, record];
  if (models) {
    const listed = path.join(dir, `${name}-models.json`);
    writeFileSync(listed, JSON.stringify(models));
    args.push(listed);
  }
  const child = spawn(python, args, { stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`editor_mock_api.py exited with ${code}`)));
  });
  return { child, url, record };
}

/** The request bodies the model received so far. */
export function recordedBodies(record) {
  if (!existsSync(record)) return [];
  return readFileSync(record, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}
