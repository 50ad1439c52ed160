// Bundles the extension (Node, CommonJS) and the chat webview (browser, IIFE + CSS) with esbuild.
//   node scripts/build.mjs               development build (sourcemaps)
//   node scripts/build.mjs --production  minified, for the .vsix
//   node scripts/build.mjs --tests       also compiles test/unit and test/webview into out/test
import * as esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");
const watch = process.argv.includes("--watch");

const common = {
  bundle: true,
  logLevel: "warning",
  sourcemap: production ? false : "linked",
  minify: production,
  legalComments: production ? "none" : "inline",
  absWorkingDir: root,
};

const builds = [
  {
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node18",
    external: ["vscode"],
  },
  {
    ...common,
    entryPoints: { webview: "webview/main.ts" },
    outdir: "dist",
    platform: "browser",
    format: "iife",
    target: "es2020",
  },
  {
    ...common,
    entryPoints: { webview: "webview/styles.css" },
    outdir: "dist",
    sourcemap: false,
  },
];

if (tests) {
  const list = (dir) =>
    readdirSync(path.join(root, dir))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `${dir}/${f}`);
  rmSync(path.join(root, "out"), { recursive: true, force: true });
  builds.push({
    ...common,
    sourcemap: "inline",
    minify: false,
    entryPoints: list("test/unit"),
    outdir: "out/test/unit",
    platform: "node",
    format: "cjs",
    target: "node20",
    alias: { vscode: "./test/unit/fake-vscode.ts" },
  });
  builds.push({
    ...common,
    sourcemap: "inline",
    minify: false,
    entryPoints: list("test/webview"),
    outdir: "out/test/webview",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["playwright-core"],
  });
}

if (production) rmSync(path.join(root, "dist"), { recursive: true, force: true });
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
  console.log("watching…");
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`built ${builds.length} bundles${production ? " (production)" : ""}`);
}
