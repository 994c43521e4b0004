// The browser demo page: connect to an MCP server, list its tools, run calls with a progress
// bar and a Cancel button each, and show every cancellation event mcp-cancel reports.
//
// MCP is the official TypeScript SDK's: its `Client` over its `StreamableHTTPClientTransport`
// (@modelcontextprotocol/client, SDK 2.x), the transport wrapped in mcp-cancel's
// `guardTransport()`. Nothing here speaks HTTP or SSE. www/build.mjs bundles this file
// with both packages into www/dist/app.js (esbuild); the page loads that bundle.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { guardTransport, init } from "mcp-cancel";

/** server-everything's own default, when the page is not served by `npm run demo:web`. */
const FALLBACK_SERVER_URL = "http://127.0.0.1:3001/mcp";
const CLIENT_INFO = { name: "mcp-cancel-www", title: "mcp-cancel browser demo", version: "0.1.0" };
/** The revision whose cancel over Streamable HTTP is closing the request's stream. */
const MODERN_VERSION = "2026-07-28";
/**
 * Calls running at once. A browser opens at most 6 HTTP/1.1 connections to one server: each
 * running call holds one (its response stream), the SDK's GET stream for server messages
 * one (2025-era sessions), and a cancel (a POST) needs one.
 */
const MAX_CALLS = 4;

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

/** @type {Connection | undefined} */
let connection;
/** @type {Map<string, any>} the server's tools by name */
let tools = new Map();
/** @type {Map<string | number, CallCard>} calls by request id (known once the request is sent) */
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

/** What a failed connect means. `fetch` tells a page nothing more than "failed" when a server is down, the address wrong, or CORS refused the page's origin. */
function describeConnectError(error, url) {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof TypeError || /failed to fetch|networkerror|network error|load failed/i.test(e.message)) {
      return (
        `Could not reach ${url}. The server may be down or the address wrong, or it refused this page's origin (CORS); ` +
        `the browser does not tell a page which. (${describe(error)})`
      );
    }
  }
  return describe(error);
}

// -- connecting ------------------------------------------------------------------------------

ui.connectForm.addEventListener("submit", (event) => {
  event.preventDefault();
  if (connection) disconnect();
  else connect(ui.serverUrl.value.trim());
});

/**
 * One connection: the SDK client, the guarded transport, and what the page watches of it.
 * The page watches, never changes, what goes by:
 * - the guard's session events (`onEvent`): cancels sent, late messages dropped, …;
 * - what the guard lets through to the SDK client (an `onmessage` set before `connect()`,
 *   which the SDK chains): messages of a call that reach the app after its Cancel;
 * - what the guard hands the SDK's transport to send: a call's request id (the request
 *   carries the call's own `onresumptiontoken` callback among its send options), and when a
 *   `notifications/cancelled` was accepted by the server (its send resolved).
 */
class Connection {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    /** Calls whose request has not gone out yet, by their `onresumptiontoken` callback. */
    this.unsent = new Map();
    this.http = new StreamableHTTPClientTransport(new URL(url));
    watchSends(this.http, {
      requestSent: (message, options) => {
        const card = this.unsent.get(options?.onresumptiontoken);
        if (card === undefined) return;
        this.unsent.delete(options.onresumptiontoken);
        card.start(message.id);
        cards.set(message.id, card);
      },
      cancelDelivered: (requestId) => cards.get(requestId)?.cancelDelivered(),
      cancelFailed: (requestId, error) => cards.get(requestId)?.set("error", `— the cancel could not be delivered: ${describe(error)}`),
    });
    this.transport = guardTransport(this.http, { onEvent: (event) => this.#onEvent(event) });
    this.transport.onmessage = (message) => this.#delivered(message);
    // 'auto': probe with server/discover (2026-07-28), fall back to initialize (2025-11-25).
    this.client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
    this.client.onerror = (error) => {
      if (connection === this) showProblem(describe(error));
    };
  }

  async open() {
    await this.client.connect(this.transport);
    const { tools: list } = await this.client.listTools();
    return list;
  }

  /** The protocol version negotiated, and the revision whose cancel rules mcp-cancel follows. */
  get protocolVersion() {
    return this.client.getNegotiatedProtocolVersion();
  }

  get revision() {
    return this.transport.session.revision;
  }

  /**
   * Calls a tool through the SDK: its progress to `card`, aborting `signal` cancels it
   * (mcp-cancel decides how the cancel goes out). Resolves with the result.
   */
  callTool(card, name, args, signal) {
    // A function of this call's own, handed to the transport with the request: how
    // watchSends() learns the call's request id (the SDK picks ids itself).
    const onresumptiontoken = () => {};
    this.unsent.set(onresumptiontoken, card);
    return this.client
      .callTool(
        { name, arguments: args },
        { signal, onprogress: (progress) => card.progress(progress), resetTimeoutOnProgress: true, onresumptiontoken },
      )
      .finally(() => this.unsent.delete(onresumptiontoken));
  }

  async close() {
    try {
      await this.transport.terminateSession?.(); // a 2025-era session: DELETE it on the server
    } catch {
      // the server may be gone already
    }
    await this.client.close().catch(() => {});
  }

  /** Every session event: to the log, to its call's card, and to the drop count. */
  #onEvent(event) {
    logEvent(event);
    const card = cards.get(event.requestId);
    if (event.type === "cancel-sent") card?.cancelSent(event);
    else if (event.type === "cancel-not-sent") card?.set("completed", "— too late to cancel: the call had already finished.");
    else if (event.type === "late-progress-dropped" || event.type === "late-response-dropped") {
      if (event.type === "late-progress-dropped") drops.progress++;
      else drops.response++;
      ui.dropSummary.textContent =
        `Late messages dropped so far: ${drops.progress + drops.response} ` +
        `(${drops.progress} progress, ${drops.response} results).`;
      card?.dropped();
    }
  }

  /** A message the guard let through to the SDK client. The SDK uses a request's id as its progress token. */
  #delivered(message) {
    const id = message?.method === undefined ? message?.id : message.method === "notifications/progress" ? message.params?.progressToken : undefined;
    if (id !== undefined) cards.get(id)?.delivered();
  }
}

/**
 * Watches what the guard hands the SDK's transport to send (the transport's own `send` does
 * the work): requests going out, and whether each `notifications/cancelled` was accepted.
 */
function watchSends(transport, { requestSent, cancelDelivered, cancelFailed }) {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const isRequest = message?.id !== undefined && typeof message?.method === "string";
    const cancelOf = message?.method === "notifications/cancelled" ? message.params?.requestId : undefined;
    if (isRequest) requestSent(message, options);
    try {
      await send(message, options);
    } catch (error) {
      if (cancelOf !== undefined) cancelFailed(cancelOf, error);
      throw error;
    }
    if (cancelOf !== undefined) cancelDelivered(cancelOf);
  };
}

async function connect(url) {
  ui.problem.hidden = true;
  ui.connect.disabled = true;
  ui.connectionStatus.textContent = `Connecting to ${url}…`;
  let candidate;
  try {
    candidate = new Connection(url);
    connection = candidate; // its errors are shown from now on
    const list = await candidate.open();
    tools = new Map(list.map((tool) => [tool.name, tool]));
  } catch (error) {
    connection = undefined;
    await candidate?.close();
    ui.connectionStatus.textContent = "Not connected.";
    showProblem(`Could not connect: ${describeConnectError(error, url)}`);
    ui.connect.disabled = false;
    return;
  }
  const server = candidate.client.getServerVersion() ?? {};
  const how =
    candidate.revision === MODERN_VERSION
      ? "a cancel closes the request's response stream"
      : "a cancel is a notifications/cancelled, POSTed";
  ui.connectionStatus.textContent =
    `Connected to ${server.title ?? server.name ?? "the server"}${server.version ? ` ${server.version}` : ""} · ` +
    `protocol ${candidate.protocolVersion} (mcp-cancel follows revision ${candidate.revision}: ${how}) · ` +
    `${tools.size} ${tools.size === 1 ? "tool" : "tools"}.`;
  ui.connect.textContent = "Disconnect";
  ui.connect.disabled = false;
  ui.serverUrl.readOnly = true;
  fillTools();
  ui.toolSection.hidden = false;
}

function disconnect() {
  const closing = connection;
  connection = undefined;
  for (const card of cards.values()) if (card.active) card.set("error", "— disconnected.");
  closing?.close();
  ui.connectionStatus.textContent = "Disconnected.";
  ui.connect.textContent = "Connect";
  ui.serverUrl.readOnly = false;
  ui.toolSection.hidden = true;
}

addEventListener("pagehide", () => connection?.close());

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
  if (!connection) return;
  let args;
  try {
    args = JSON.parse(ui.toolArgs.value || "{}");
  } catch (error) {
    ui.runNote.textContent = `The arguments are not valid JSON: ${error.message}`;
    ui.toolArgs.focus();
    return;
  }
  const running = [...document.querySelectorAll("li.call")].filter((li) => li.dataset.state === "running").length;
  if (running >= MAX_CALLS) {
    ui.runNote.textContent = `At most ${MAX_CALLS} calls can run at once: a browser opens at most 6 connections to one server, and a cancel needs one.`;
    return;
  }
  const name = ui.tool.value;
  const controller = new AbortController();
  const card = new CallCard(name, args, (reason) => controller.abort(reason));
  connection.callTool(card, name, args, controller.signal).then(
    (result) => card.completed(result),
    (error) => card.failed(error),
  );
});

$("clear-calls").addEventListener("click", () => {
  for (const li of ui.calls.querySelectorAll("li.call")) {
    const card = cardOf.get(li);
    if (card && !card.active) {
      card.remove();
      cards.delete(card.id);
    }
  }
  ui.callsSection.hidden = ui.calls.childElementCount === 0;
});

/** @type {WeakMap<Element, CallCard>} */
const cardOf = new WeakMap();

/** One call on the page: its progress, state, Cancel button and counters. */
class CallCard {
  state = "running";
  cancelPressed = false;
  /** @type {string | number | undefined} the request id, once the request went out */
  id;
  /** The reason given on Cancel, and the one mcp-cancel sent (its policy applied). */
  #localReason;
  #reason;
  #via;
  #dropped = 0;
  #afterCancel = 0;

  /** @param {(reason: string | undefined) => void} cancel aborts the call with the reason */
  constructor(tool, args, cancel) {
    this.el = $("call-template").content.firstElementChild.cloneNode(true);
    cardOf.set(this.el, this);
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

  /** The request went out with this id. */
  start(id) {
    this.id = id;
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

  /** A message of this call reached the SDK client (mcp-cancel let it through). */
  delivered() {
    if (this.cancelPressed) this.$(".count-after-cancel").textContent = String(++this.#afterCancel);
  }

  dropped() {
    this.$(".count-dropped").textContent = String(++this.#dropped);
  }

  /** mcp-cancel sent the cancel (the event's `via` says how, its `reason` what was sent). */
  cancelSent(event) {
    this.#reason = event.reason;
    this.#via = event.via;
    if (this.state === "cancelling") this.$(".detail").textContent = event.via === "stream-close" ? "— closing the stream…" : "— sending notifications/cancelled…";
  }

  /** The server accepted the `notifications/cancelled` (the transport's send of it resolved). */
  cancelDelivered() {
    if (this.state !== "cancelling") return;
    const reason = this.#reason === undefined ? "no reason given" : `reason: “${this.#reason}”`;
    this.set("cancelled", `— ${reason}; the server accepted notifications/cancelled; anything late for this call is dropped by mcp-cancel.`);
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

  /** The SDK rejected the call: an error, or its cancel (the SDK rejects a cancelled call at once). */
  failed(error) {
    if (this.cancelPressed && this.state === "cancelling") {
      // 2026-07-28 over Streamable HTTP: the stream is closed (the fetch aborted) when the
      // SDK rejects; nothing goes to the server but the stream's end, so the reason stays here.
      if (this.#via === "stream-close") {
        const reason = this.#localReason ? `reason: “${this.#localReason}” (not sent: ` : "(";
        this.set("cancelled", `— ${reason}closing the response stream is the whole cancel in 2026-07-28).`);
      } else if (this.id === undefined) {
        this.set("cancelled", "— before its request went out: there was nothing to cancel on the server.");
      }
      // A notification: "cancelled" once the server accepted it (cancelDelivered).
      return;
    }
    if (!this.active) return;
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
  await init(); // fetches and compiles mcp-cancel's .wasm (www/dist/mcp_cancel_bg.wasm, next to the bundle), once
  ui.connect.disabled = false;
  document.body.dataset.ready = "true";
} catch (error) {
  showProblem(`mcp-cancel's WebAssembly module did not load: ${describe(error)}`);
}
