// The page: connect to an MCP server, list its tools, run calls with a progress bar and a
// Cancel button each, and show every cancellation event mcp-cancel reports.
import { init } from "mcp-cancel";

import { LINGER_MS, McpHttpClient, MODERN_VERSION } from "./mcp-http.js";

/** server-everything's own default, when the page is not served by `npm run demo:web`. */
const FALLBACK_SERVER_URL = "http://127.0.0.1:3001/mcp";

const $ = (id) => document.getElementById(id);
const ui = {
  problem: $("problem"),
  problemText: $("problem-text"),
  connectForm: $("connect-form"),
  serverUrl: $("server-url"),
  connect: $("connect"),
  connectionStatus: $("connection-status"),
  toolSection: $("tool-section"),
  runForm: $("run-form"),
  tool: $("tool"),
  toolDescription: $("tool-description"),
  toolArgs: $("tool-args"),
  cancelReason: $("cancel-reason"),
  runNote: $("run-note"),
  callsSection: $("calls-section"),
  calls: $("calls"),
  eventLog: $("event-log"),
  dropSummary: $("drop-summary"),
};

/** @type {McpHttpClient | undefined} */
let client;
/** @type {Map<string, any>} the server's tools by name */
let tools = new Map();
/** @type {Map<string | number, CallCard>} calls by request id */
const cards = new Map();
const drops = { progress: 0, response: 0 };

// -- problems: shown on the page, never only in the console ---------------------------------

function showProblem(text) {
  ui.problemText.textContent = text;
  ui.problem.hidden = false;
}

$("problem-dismiss").addEventListener("click", () => {
  ui.problem.hidden = true;
});

const describe = (error) => (error instanceof Error ? error.message : `Cancelled: ${String(error)}`);

// -- connecting ------------------------------------------------------------------------------

ui.connectForm.addEventListener("submit", (event) => {
  event.preventDefault();
  if (client) disconnect();
  else connect(ui.serverUrl.value.trim());
});

async function connect(url) {
  ui.problem.hidden = true;
  ui.connect.disabled = true;
  ui.connectionStatus.textContent = `Connecting to ${url}…`;
  let candidate;
  try {
    candidate = new McpHttpClient(url);
    listen(candidate);
    await candidate.connect();
    tools = new Map((await candidate.listTools()).map((tool) => [tool.name, tool]));
  } catch (error) {
    await candidate?.close();
    ui.connectionStatus.textContent = "Not connected.";
    showProblem(`Could not connect: ${describe(error)}`);
    ui.connect.disabled = false;
    return;
  }
  client = candidate;
  const server = client.serverInfo ?? {};
  const how =
    client.revision === MODERN_VERSION
      ? "a cancel closes the request's response stream"
      : "a cancel is a notifications/cancelled, POSTed";
  ui.connectionStatus.textContent =
    `Connected to ${server.title ?? server.name ?? "the server"}${server.version ? ` ${server.version}` : ""} · ` +
    `protocol ${client.protocolVersion} (mcp-cancel follows revision ${client.revision}: ${how}) · ` +
    `${tools.size} ${tools.size === 1 ? "tool" : "tools"}.`;
  ui.connect.textContent = "Disconnect";
  ui.connect.disabled = false;
  ui.serverUrl.readOnly = true;
  fillTools();
  ui.toolSection.hidden = false;
}

function disconnect() {
  const closing = client;
  client = undefined;
  closing?.close();
  for (const card of cards.values()) if (card.active) card.set("error", "Disconnected.");
  ui.connectionStatus.textContent = "Disconnected.";
  ui.connect.textContent = "Connect";
  ui.serverUrl.readOnly = false;
  ui.toolSection.hidden = true;
}

addEventListener("pagehide", () => client?.close());

/** The client's events: the session's cancellation events, cancels delivered, drops. */
function listen(c) {
  c.addEventListener("cancellation", ({ detail: event }) => {
    logEvent(event);
    const card = cards.get(event.requestId);
    if (event.type === "cancel-sent") card?.cancelSent(event);
    if (event.type === "cancel-not-sent") card?.set("completed", "Too late to cancel: the call had already finished.");
  });
  c.addEventListener("cancel-delivered", ({ detail }) => cards.get(detail.requestId)?.cancelDelivered(detail));
  c.addEventListener("cancel-failed", ({ detail }) => {
    cards.get(detail.requestId)?.set("error", `The cancel could not be delivered: ${describe(detail.error)}`);
  });
  c.addEventListener("dropped", ({ detail }) => {
    if (detail.kind === "progress") drops.progress++;
    else if (detail.kind === "response") drops.response++;
    ui.dropSummary.textContent =
      `Late messages dropped so far: ${drops.progress + drops.response} ` +
      `(${drops.progress} progress, ${drops.response} results).`;
    cards.get(detail.requestId)?.dropped();
  });
  c.addEventListener("problem", ({ detail }) => showProblem(describe(detail)));
}

// -- tools -------------------------------------------------------------------------------------

function fillTools() {
  ui.tool.replaceChildren(
    ...[...tools.keys()].sort().map((name) => new Option(tools.get(name).title ? `${name} — ${tools.get(name).title}` : name, name)),
  );
  if (tools.has("trigger-long-running-operation")) ui.tool.value = "trigger-long-running-operation";
  showTool();
}

ui.tool.addEventListener("change", showTool);

function showTool() {
  const tool = tools.get(ui.tool.value);
  ui.toolDescription.textContent = tool?.description ?? "";
  ui.toolArgs.value = JSON.stringify(exampleArguments(tool?.inputSchema));
}

/** Arguments from a JSON Schema: each property's default, else an empty value of its type. */
function exampleArguments(schema) {
  const args = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (property.default !== undefined) args[name] = property.default;
    else if (schema.required?.includes(name)) args[name] = { number: 0, integer: 0, boolean: false, array: [], object: {} }[property.type] ?? "";
  }
  return args;
}

// -- calls -------------------------------------------------------------------------------------

ui.runForm.addEventListener("submit", (event) => {
  event.preventDefault();
  ui.runNote.textContent = "";
  if (!client) return;
  let args;
  try {
    args = JSON.parse(ui.toolArgs.value || "{}");
  } catch (error) {
    ui.runNote.textContent = `The arguments are not valid JSON: ${error.message}`;
    ui.toolArgs.focus();
    return;
  }
  const name = ui.tool.value;
  const controller = new AbortController();
  const card = new CallCard(name, args, (reason) => controller.abort(reason));
  let call;
  try {
    call = client.callTool(name, args, {
      signal: controller.signal,
      onProgress: (progress) => card.progress(progress),
      onMessage: () => card.delivered(),
    });
  } catch (error) {
    card.remove();
    ui.runNote.textContent = describe(error);
    return;
  }
  card.start(call.id);
  cards.set(call.id, card);
  call.response.then(
    (result) => card.completed(result),
    (error) => card.failed(error),
  );
});

$("clear-calls").addEventListener("click", () => {
  for (const [id, card] of cards) {
    if (!card.active) {
      card.remove();
      cards.delete(id);
    }
  }
  ui.callsSection.hidden = cards.size === 0;
});

/** One call on the page: its progress, state, Cancel button and counters. */
class CallCard {
  state = "running";
  cancelPressed = false;
  /** The reason given on Cancel, and the one mcp-cancel sent (its policy applied). */
  #localReason;
  #reason;
  #dropped = 0;
  #afterCancel = 0;

  /** @param {(reason: string | undefined) => void} cancel aborts the call with the reason */
  constructor(tool, args, cancel) {
    this.el = $("call-template").content.firstElementChild.cloneNode(true);
    this.$ = (selector) => this.el.querySelector(selector);
    this.$(".call-tool").textContent = tool;
    this.$(".call-args").textContent = JSON.stringify(args);
    this.cancelButton = this.$(".cancel");
    this.cancelButton.addEventListener("click", () => {
      this.cancelPressed = true;
      this.#localReason = ui.cancelReason.value.trim() || undefined;
      this.set("cancelling", "");
      cancel(this.#localReason);
    });
    ui.calls.prepend(this.el);
    ui.callsSection.hidden = false;
  }

  start(id) {
    this.el.dataset.requestId = String(id);
    this.$(".call-id").textContent = `request ${id}`;
    this.cancelButton.setAttribute("aria-label", `Cancel request ${id} (${this.$(".call-tool").textContent})`);
    this.$(".call-progress").setAttribute("aria-label", `Progress of request ${id}`);
  }

  get active() {
    return this.state === "running" || this.state === "cancelling";
  }

  /** Sets the state ("running" | "cancelling" | "cancelled" | "completed" | "error") and its detail text. */
  set(state, detail) {
    this.state = state;
    this.el.dataset.state = state;
    this.$(".state").textContent = { cancelling: "cancelling…" }[state] ?? state;
    this.$(".detail").textContent = detail;
    if (!this.active || state === "cancelling") {
      const hadFocus = document.activeElement === this.cancelButton;
      this.cancelButton.disabled = true;
      if (hadFocus) this.$(".call-status").focus();
    }
  }

  progress({ progress, total, message }) {
    const bar = this.$(".call-progress");
    if (typeof total === "number" && total > 0) bar.max = total;
    bar.value = progress;
    this.$(".progress-text").textContent = `${progress}${typeof total === "number" ? ` / ${total}` : ""}${message ? ` — ${message}` : ""}`;
  }

  /** A message of this call reached the app (mcp-cancel let it through). */
  delivered() {
    if (this.cancelPressed) this.$(".count-after-cancel").textContent = String(++this.#afterCancel);
  }

  dropped() {
    this.$(".count-dropped").textContent = String(++this.#dropped);
  }

  cancelSent(event) {
    this.#reason = event.reason;
    if (this.state === "cancelling") this.$(".detail").textContent = event.via === "stream-close" ? "— closing the stream…" : "— sending notifications/cancelled…";
  }

  cancelDelivered({ via, status }) {
    if (via === "stream-close") {
      // Nothing goes to the server but the stream's end: the reason stays on this side.
      const reason = this.#localReason ? `reason: “${this.#localReason}” (not sent: ` : "(";
      this.set("cancelled", `— ${reason}closing the response stream is the whole cancel in 2026-07-28).`);
    } else {
      const reason = this.#reason === undefined ? "no reason given" : `reason: “${this.#reason}”`;
      this.set("cancelled", `— ${reason}; the server accepted notifications/cancelled (HTTP ${status}); late messages are dropped for ${LINGER_MS / 1000} s.`);
    }
  }

  completed(result) {
    const text = (result?.content ?? [])
      .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
      .join("\n");
    const out = this.$(".call-result");
    out.textContent = text || JSON.stringify(result?.structuredContent ?? result, null, 2);
    out.hidden = false;
    if (result?.isError) this.set("error", "— the tool reported an error:");
    else this.set("completed", this.cancelPressed ? "— it finished before the cancel could go out." : "");
    const bar = this.$(".call-progress");
    if (!bar.hasAttribute("value")) bar.value = bar.max = 1;
  }

  failed(error) {
    // A cancel rejects the call with its reason: the state is the cancel events' to tell.
    if (this.cancelPressed && this.state !== "running") return;
    this.set("error", `— ${describe(error)}`);
  }

  remove() {
    this.el.remove();
  }
}

// -- the event log ---------------------------------------------------------------------------

const LOG_LIMIT = 500;

function logEvent(event) {
  const { type, direction, requestId, method, ...rest } = event;
  const item = document.createElement("li");
  item.dataset.type = type;
  const time = document.createElement("time");
  time.textContent = new Date().toISOString().slice(11, 23);
  const tag = document.createElement("span");
  tag.className = "event-type";
  tag.textContent = type;
  const what = document.createElement("span");
  what.className = "event-what";
  what.textContent = [requestId !== undefined ? `request ${requestId}` : "", method ?? "", direction ? `(${direction})` : ""]
    .filter(Boolean)
    .join(" ");
  const details = document.createElement("span");
  details.className = "event-details";
  details.textContent = Object.entries(rest)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
  item.append(time, tag, what, details);
  ui.eventLog.prepend(item);
  while (ui.eventLog.childElementCount > LOG_LIMIT) ui.eventLog.lastElementChild.remove();
}

$("clear-log").addEventListener("click", () => ui.eventLog.replaceChildren());

// -- start -------------------------------------------------------------------------------------

/** The server URL: `?server=…`, else the demo's config.json (`npm run demo:web`), else server-everything's default. */
async function defaultServerUrl() {
  const param = new URLSearchParams(location.search).get("server");
  if (param) return param;
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) return (await response.json()).serverUrl ?? FALLBACK_SERVER_URL;
  } catch {
    // not served by the demo: use the fallback
  }
  return FALLBACK_SERVER_URL;
}

ui.connect.disabled = true;
ui.serverUrl.value = await defaultServerUrl();
try {
  await init(); // fetches and compiles mcp-cancel's .wasm, once
  ui.connect.disabled = false;
  document.body.dataset.ready = "true";
} catch (error) {
  showProblem(`mcp-cancel's WebAssembly module did not load: ${describe(error)}`);
}
