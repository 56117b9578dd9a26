// Drives GET /docs in Debian's headless chromium (playwright-core never downloads a browser).
//
// usage: node docs_page.mjs BASE_URL SCREENSHOT_DIR SCENARIO
//   echo:      send a message streamed, then one with streaming off (message/send + polling)
//   multiturn: send, answer the agent's input-required question, see the task complete
// Prints one JSON document on stdout with what a person would have seen; exits non-zero on failure.
import { chromium } from "playwright-core";

const [baseUrl, outDir, scenario] = process.argv.slice(2);
const STEP_TIMEOUT = 15_000;
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
  timeout: STEP_TIMEOUT,
});
const report = { scenario, requests: [], pageErrors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(STEP_TIMEOUT);
  page.on("request", (request) => report.requests.push(request.url()));
  page.on("pageerror", (error) => report.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") report.pageErrors.push(message.text());
  });

  await page.goto(new URL("docs", baseUrl).href);
  await page.waitForFunction(() => !document.getElementById("send-button").disabled);
  report.cardName = await page.textContent("#agent-name");
  report.capabilities = await page.locator("#capabilities .badge.on").allTextContents();
  report.auth = await page.textContent("#auth");
  report.facts = await page.textContent("#card-facts");

  const send = async (text) => {
    await page.fill("#message-input", text);
    await page.click("#send-button");
  };
  const waitState = (state) =>
    page.waitForFunction((s) => document.getElementById("task-state").dataset.state === s, state);

  if (scenario === "echo") {
    await send("hello from the browser");
    await page.locator(".msg.agent", { hasText: "Echo: hello from the browser" }).waitFor();
    await waitState("completed");
    report.streamedReply = await page.locator(".msg.agent").last().textContent();

    await page.uncheck("#use-stream");
    await send("and now polled");
    await page.locator(".msg.agent", { hasText: "Echo: and now polled" }).waitFor();
    await waitState("completed");
    report.polledReply = await page.locator(".msg.agent").last().textContent();
  } else if (scenario === "multiturn") {
    await send("otters");
    await waitState("input-required");
    report.question = await page.locator(".msg.agent").last().textContent();
    report.draft = await page.locator(".artifact .body").first().textContent();
    report.infoWhileWaiting = await page.textContent("#task-info");
    await send("children");
    await waitState("completed");
    report.finalReply = await page.locator(".msg.agent").last().textContent();
    report.artifactTitles = await page.locator(".artifact .title").allTextContents();
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  report.state = await page.textContent("#task-state");
  report.messages = await page.locator("#transcript .msg").allTextContents();
  report.screenshot = `${outDir}/docs-${scenario}.png`;
  await page.screenshot({ path: report.screenshot, fullPage: true });
} catch (error) {
  report.error = String(error && error.stack ? error.stack : error);
  process.exitCode = 1;
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
