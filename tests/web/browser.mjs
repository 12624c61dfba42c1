// Helpers for browser tests of the pt2onnx page: Debian's Chromium driven by playwright-core, and the page's
// own static server.
//
//   import { launchBrowser, startServer } from "./browser.mjs";
//   const server = await startServer("path/to/site");
//   const browser = await launchBrowser();
//   const page = await browser.newPage();
//   await page.goto(server.url);
//   ...
//   await browser.close(); await server.close();
//
// playwright-core ships no browser, and `npx playwright install` would download one (impossible offline), so
// the system Chromium is used (tools/setup.sh installs it).

import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

// Without the networking flags Chromium keeps trying to reach outside hosts (updates, sync, field trials),
// which fails here and slows start-up; --no-sandbox is needed when running as root.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts Chromium. playwright gives each launch a fresh temporary profile (user-data-dir) and removes it on
 * close, so runs share no state. `options` are passed to chromium.launch.
 */
export async function launchBrowser(options = {}) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ...options,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  });
}

/**
 * Serves `rootDir` with web/serve.py on a free port of 127.0.0.1.
 * Resolves to { url, close() } once the server prints its address; close() stops it.
 */
export function startServer(rootDir, { timeoutMs = 10_000 } = {}) {
  const child = spawn("python3", [join(REPO, "web", "serve.py"), "--root", rootDir, "--port", "0", "--quiet"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s) => { stderr += s; });

  const exited = new Promise((resolve) => child.once("exit", resolve));
  // A test that dies without calling close() must not leave the server running.
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  exited.then(() => process.off("exit", killOnExit));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      close().finally(() => reject(new Error(`web/serve.py ${why}\n${stderr}`)));
    };
    const timer = setTimeout(() => fail(`printed no address within ${timeoutMs} ms`), timeoutMs);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s) => {
      out += s;
      const m = /pt2onnx page: (http:\/\/\S+)/.exec(out);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ url: m[1], close });
      }
    });
    child.once("error", (e) => fail(`could not start: ${e.message}`));
    child.once("exit", (code) => fail(`exited early (code ${code})`));
  });
}
